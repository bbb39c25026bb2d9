/**
 * Admin routes for users: me, list, create (with a first API token, shown once), delete (revoking tokens).
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function adminUserRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps): Promise<void>;
