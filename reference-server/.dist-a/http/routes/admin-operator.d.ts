/**
 * Admin routes for operators: event injection, dead letters (list, requeue), the per-pod queue view.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function adminOperatorRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps): Promise<void>;
