/**
 * Request loggers made on first use. Fastify gives every request a pino child bound to its request id;
 * making that child cost about 3 % of the kernel's CPU on the one-ack drain (A/B with bench/ab-drain.mjs),
 * yet at the kernel's usual levels almost no request writes a line. The factory below hands Fastify a
 * stand-in that makes the real child the first time a level that is enabled is written to, so every line
 * carries the same bindings and options as the eager child's would. A route with options of its own (a
 * log level, serializers) gets the eager child. Must never drop a line the eager child would write.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions } from "pino";
/** Fastify's `childLoggerFactory`: a request's logger, made when it first writes a line. */
export declare const lazyRequestLogger: (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) => FastifyBaseLogger;
