import { errorEntry, KernelError } from "../errors/registry.js";
import { StoreUnavailableError } from "../kernel.js";
/** Seconds a client should wait before retrying while the store is out (a restart takes about that). */
export const STORE_RETRY_AFTER_S = 1;
const FASTIFY_CODES = {
    FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
    FST_ERR_CTP_INVALID_TYPE: "unsupported_media_type",
    FST_ERR_CTP_BODY_TOO_LARGE: "body_too_large",
    FST_ERR_CTP_EMPTY_JSON_BODY: "malformed_json",
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: "malformed_json",
    FST_ERR_CTP_INVALID_JSON_BODY: "malformed_json",
    FST_ERR_NOT_FOUND: "route_not_found",
};
const BY_STATUS = {
    400: "validation_failed",
    404: "route_not_found",
    413: "body_too_large",
    415: "unsupported_media_type",
};
export function sendError(reply, code, message, details) {
    const entry = errorEntry(code);
    return reply
        .code(entry.status)
        .type("application/json; charset=utf-8")
        .send({ code, message: message ?? entry.message, ...(details !== undefined ? { details } : {}) });
}
export function installErrorHandling(app, { onUnmatched } = {}) {
    app.setNotFoundHandler((req, reply) => {
        sendError(reply, "route_not_found");
        onUnmatched?.(req, reply);
        return reply;
    });
    app.setErrorHandler((err, req, reply) => {
        const answered = answerError(err, req, reply);
        if (onUnmatched && req.is404)
            onUnmatched(req, reply);
        return answered;
    });
}
function answerError(err, req, reply) {
    if (err instanceof KernelError) {
        if (err.code === "unavailable")
            reply.header("Retry-After", "1");
        for (const [k, v] of Object.entries(err.headers ?? {}))
            reply.header(k, v);
        return sendError(reply, err.code, err.message, err.details);
    }
    // A store outage passes: say so (503 + Retry-After) instead of reporting a fault (CAP-ERR-9).
    if (err instanceof StoreUnavailableError) {
        req.log.warn({ err: err.message }, "store unavailable");
        reply.header("Retry-After", String(STORE_RETRY_AFTER_S));
        return sendError(reply, "store_unavailable");
    }
    const mapped = FASTIFY_CODES[err.code ?? ""];
    if (mapped)
        return sendError(reply, mapped);
    const status = err.statusCode ?? 500;
    const byStatus = BY_STATUS[status];
    if (status < 500 && byStatus)
        return sendError(reply, byStatus);
    req.log.error({ err }, "unhandled error");
    return sendError(reply, "internal_error");
}
//# sourceMappingURL=errors.js.map