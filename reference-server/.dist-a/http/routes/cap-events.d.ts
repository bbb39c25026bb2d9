/**
 * CAP event routes: GET /events (claim with lease, optional long-poll and pollId), POST /events/{id}/ack,
 * POST /events/{id}/renew, POST /events/{id}/release, POST /events/ack (batch). Thin: validate, call the
 * events service, shape the answer.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
export declare function capEventRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps): Promise<void>;
