/**
 * Admin routes for the registry: publish, list, install, runtime tokens (issue once / list / revoke),
 * uninstall.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function adminRegistryRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps): Promise<void>;
