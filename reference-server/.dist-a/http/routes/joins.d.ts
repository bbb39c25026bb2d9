/**
 * POST /api/joins/redeem — unauthenticated: the one-time join code is the credential. Answers the new
 * installation and its runtime token, once.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function joinRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps): Promise<void>;
