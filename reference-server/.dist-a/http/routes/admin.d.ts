/**
 * The kernel's admin surface (spec/src/admin → spec/generated/kernel-admin.openapi.yaml), under /api.
 * Every route but join-code redemption authenticates a user API token in onRequest, before the body is
 * read; roles (kernel admin, pod admin, member) are checked by the services.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function adminRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void>;
