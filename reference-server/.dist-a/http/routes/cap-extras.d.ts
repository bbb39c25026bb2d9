import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function capExtraRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps): Promise<void>;
