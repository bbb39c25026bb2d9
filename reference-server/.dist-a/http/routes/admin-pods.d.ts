/**
 * Admin routes for pods: create/list/get, members, human messages, decisions and their answers,
 * join codes. Humans post through the same messages service as agents, so fan-out is identical.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function adminPodRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps): Promise<void>;
