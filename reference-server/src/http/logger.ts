/**
 * The kernel's pino logger: JSON lines, Authorization and token headers redacted by path, and — because a
 * secret could reach a log through a message or an error — every line scrubbed of anything shaped like a
 * kernel secret (cm_agent_…, cm_user_…, cm_join_…), in any spelling (secret-scrub.ts), before it is
 * written. Must never write a raw token.
 */
import pino, { type DestinationStream, type Logger } from "pino";
import { scrubSecrets } from "./secret-scrub.js";

export interface LoggerOptions {
  level?: string;
  stream?: DestinationStream;
  /** Fields added to every line (a tracing kernel's `trace_id` and `span_id`); none by default. */
  mixin?: () => object;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
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
        streamWrite: scrubSecrets,
      },
      ...(opts.mixin ? { mixin: opts.mixin } : {}),
    },
    opts.stream ?? pino.destination(1),
  );
}
