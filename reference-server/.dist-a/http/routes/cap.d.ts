import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function capRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void>;
