import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function capMessageRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps): Promise<void>;
