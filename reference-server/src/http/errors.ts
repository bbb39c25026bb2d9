/**
 * Turns anything thrown during a request into the one error shape `{code, message, details?}` with the
 * registry's status (brief §2.8). Framework errors (media type, body size, JSON syntax) are mapped to
 * their registry codes; a store outage is 503 store_unavailable with Retry-After; anything unexpected is
 * logged and answered 500 internal_error without a stack.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type ErrorCode, errorEntry, KernelError } from "../errors/registry.js";
import { StoreUnavailableError } from "../kernel.js";

/** Seconds a client should wait before retrying while the store is out (a restart takes about that). */
export const STORE_RETRY_AFTER_S = 1;

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_TYPE: "unsupported_media_type",
  FST_ERR_CTP_BODY_TOO_LARGE: "body_too_large",
  FST_ERR_CTP_EMPTY_JSON_BODY: "malformed_json",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "malformed_json",
  FST_ERR_CTP_INVALID_JSON_BODY: "malformed_json",
  FST_ERR_NOT_FOUND: "route_not_found",
};

const BY_STATUS: Record<number, ErrorCode> = {
  400: "validation_failed",
  404: "route_not_found",
  413: "body_too_large",
  415: "unsupported_media_type",
};

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string, details?: unknown) {
  const entry = errorEntry(code);
  return reply
    .code(entry.status)
    .type("application/json; charset=utf-8")
    .send({ code, message: message ?? entry.message, ...(details !== undefined ? { details } : {}) });
}

export interface ErrorHandlingOptions {
  /**
   * Told of every answer to a request that matched no route (a 404, or an error found before it, such as
   * a malformed body): such requests have no route of their own whose hooks could see them.
   */
  onUnmatched?: (req: FastifyRequest, reply: FastifyReply) => void;
}

export function installErrorHandling(app: FastifyInstance, { onUnmatched }: ErrorHandlingOptions = {}): void {
  app.setNotFoundHandler((req, reply) => {
    sendError(reply, "route_not_found");
    onUnmatched?.(req, reply);
    return reply;
  });
  app.setErrorHandler((err: FastifyError | KernelError, req: FastifyRequest, reply: FastifyReply) => {
    const answered = answerError(err, req, reply);
    if (onUnmatched && req.is404) onUnmatched(req, reply);
    return answered;
  });
}

function answerError(err: FastifyError | KernelError, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof KernelError) {
    if (err.code === "unavailable") reply.header("Retry-After", "1");
    for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
    return sendError(reply, err.code, err.message, err.details);
  }
  // A store outage passes: say so (503 + Retry-After) instead of reporting a fault (CAP-ERR-9).
  if (err instanceof StoreUnavailableError) {
    req.log.warn({ err: err.message }, "store unavailable");
    reply.header("Retry-After", String(STORE_RETRY_AFTER_S));
    return sendError(reply, "store_unavailable");
  }
  const mapped = FASTIFY_CODES[(err as FastifyError).code ?? ""];
  if (mapped) return sendError(reply, mapped);
  const status = (err as FastifyError).statusCode ?? 500;
  const byStatus = BY_STATUS[status];
  if (status < 500 && byStatus) return sendError(reply, byStatus);
  req.log.error({ err }, "unhandled error");
  return sendError(reply, "internal_error");
}
