/**
 * The W3C trace context a request was made with (CAP feature `trace-context`), for the routes whose request
 * enqueues events (message posts, decisions and their answers, operator injects). A profile that does not
 * advertise the feature (production) ignores the headers, as any HTTP server would.
 *
 * Must never: refuse a request for its trace headers, or read `baggage`.
 */
import type { FastifyRequest } from "fastify";
import type { WireProfile } from "../profiles/index.js";
import { readTraceContext, type TraceContext } from "../services/trace-context.js";

export const TRACE_CONTEXT = "trace-context";

/** Reads a request's trace context under `profile`: undefined when there is none valid, or it is ignored. */
export function traceReader(profile: WireProfile): (req: FastifyRequest) => TraceContext | undefined {
  if (profile.unadvertised.includes(TRACE_CONTEXT)) return () => undefined;
  return (req) => readTraceContext(req.headers);
}
