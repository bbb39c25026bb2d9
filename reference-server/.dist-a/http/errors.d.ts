/**
 * Turns anything thrown during a request into the one error shape `{code, message, details?}` with the
 * registry's status (brief §2.8). Framework errors (media type, body size, JSON syntax) are mapped to
 * their registry codes; a store outage is 503 store_unavailable with Retry-After; anything unexpected is
 * logged and answered 500 internal_error without a stack.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type ErrorCode } from "../errors/registry.js";
/** Seconds a client should wait before retrying while the store is out (a restart takes about that). */
export declare const STORE_RETRY_AFTER_S = 1;
export declare function sendError(reply: FastifyReply, code: ErrorCode, message?: string, details?: unknown): FastifyReply<import("fastify").RouteGenericInterface, import("fastify").RawServerDefault, import("http").IncomingMessage, import("http").ServerResponse<import("http").IncomingMessage>, unknown, import("fastify").FastifySchema, import("fastify").FastifyTypeProviderDefault, unknown>;
export interface ErrorHandlingOptions {
    /**
     * Told of every answer to a request that matched no route (a 404, or an error found before it, such as
     * a malformed body): such requests have no route of their own whose hooks could see them.
     */
    onUnmatched?: (req: FastifyRequest, reply: FastifyReply) => void;
}
export declare function installErrorHandling(app: FastifyInstance, { onUnmatched }?: ErrorHandlingOptions): void;
