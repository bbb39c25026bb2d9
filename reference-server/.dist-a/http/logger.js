/**
 * The kernel's pino logger: JSON lines, Authorization and token headers redacted by path, and — because a
 * secret could reach a log through a message or an error — every line scrubbed of anything shaped like a
 * kernel secret (cm_agent_…, cm_user_…, cm_join_…) before it is written. Must never write a raw token.
 */
import pino from "pino";
import { ANY_SECRET } from "../secrets.js";
export function createLogger(opts = {}) {
    return pino({
        level: opts.level ?? "info",
        redact: {
            paths: [
                "req.headers.authorization",
                'req.headers["x-commonly-agent-token"]',
                "headers.authorization",
                "*.token",
                "token",
            ],
            censor: "[REDACTED]",
        },
        hooks: {
            streamWrite: (line) => line.replace(ANY_SECRET, "[REDACTED]"),
        },
    }, opts.stream ?? pino.destination(1));
}
//# sourceMappingURL=logger.js.map