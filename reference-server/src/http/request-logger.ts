/**
 * Request loggers made on first use. Fastify gives every request a pino child bound to its request id;
 * making that child showed on the one-ack drain's profile, yet at the kernel's usual levels almost no
 * request writes a line. The factory below hands Fastify a
 * stand-in that makes the real child the first time a level that is enabled is written to, so every line
 * carries the same bindings and options as the eager child's would. A route with options of its own (a
 * log level, serializers) gets the eager child. Given the raw request (tracing off), every line of it
 * carries the trace id of its valid `traceparent` as `traceId`, read when the child is made; with tracing
 * on, the logger's mixin writes the active span's `trace_id` and `span_id` instead (src/tracing).
 * Must never drop a line the eager child would write, or log `tracestate` or `baggage`.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from "pino";
import { readTraceContext, traceIdOf } from "../services/trace-context.js";

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
type Write = (...args: unknown[]) => void;
type LevelAware = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/** The bindings with the `traceId` of the request's valid `traceparent`, if it has one. */
function withTraceId(bindings: Bindings, raw: IncomingMessage | undefined): Bindings {
  const received = raw ? readTraceContext(raw.headers) : undefined;
  return received ? { ...bindings, traceId: traceIdOf(received.traceparent) } : bindings;
}

class LazyChild implements FastifyBaseLogger {
  #real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAware,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
    private readonly raw: IncomingMessage | undefined,
  ) {}

  get #child(): FastifyBaseLogger {
    this.#real ??= this.parent.child(withTraceId(this.bindings, this.raw), this.options);
    return this.#real;
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#real === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.#child[level] as Write)(...args);
  }

  get level(): LevelWithSilentOrString {
    return this.#real?.level ?? this.parent.level;
  }
  set level(level: LevelWithSilentOrString) {
    this.#child.level = level;
  }
  // Prototype methods, not arrow-function fields: six closures per request would undo the saving.
  fatal(...args: unknown[]): void {
    this.#write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.#write("error", args);
  }
  warn(...args: unknown[]): void {
    this.#write("warn", args);
  }
  info(...args: unknown[]): void {
    this.#write("info", args);
  }
  debug(...args: unknown[]): void {
    this.#write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.#write("trace", args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#child.child(bindings, options);
  }
}

const levelAware = (logger: FastifyBaseLogger): logger is LevelAware =>
  typeof (logger as Partial<LevelAware>).isLevelEnabled === "function";

/**
 * Fastify's `childLoggerFactory`: a request's logger, made when it first writes a line. `raw` (Fastify
 * passes it) adds the received `traceId`; a tracing kernel leaves it out.
 */
export const lazyRequestLogger = (
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
  raw?: IncomingMessage,
): FastifyBaseLogger =>
  levelAware(logger) && Object.keys(options).length === 0
    ? new LazyChild(logger, bindings, options, raw)
    : logger.child(withTraceId(bindings, raw), options);
