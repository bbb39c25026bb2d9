/**
 * CAP memory routes: GET /memory, PUT /memory, POST /memory/sync. Unknown section keys answer
 * 400 unknown_memory_section (checked before the schema, which would call them validation_failed).
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function capMemoryRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps): Promise<void>;
