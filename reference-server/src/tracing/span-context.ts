/**
 * Between the kernel's TraceContext (the normalised `traceparent` an event carries) and OpenTelemetry's
 * SpanContext: the parent of a `send` span, the links of a `receive` span, the context an event is given.
 * Must never make a SpanContext from a string readTraceContext did not produce (it trusts the format).
 */
import { type SpanContext, TraceFlags } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { type TraceContext, traceIdOf } from "../services/trace-context.js";

/** The sampled bit of a normalised `traceparent` (`00-<trace>-<parent>-<flags>`). */
export const isSampled = (tc: TraceContext): boolean =>
  (Number.parseInt(tc.traceparent.slice(53, 55), 16) & TraceFlags.SAMPLED) !== 0;

export const traceIdOfContext = (tc: TraceContext): string => traceIdOf(tc.traceparent);

/** The remote span a TraceContext names. */
export function spanContextOf(tc: TraceContext): SpanContext {
  return {
    traceId: traceIdOf(tc.traceparent),
    spanId: tc.traceparent.slice(36, 52),
    traceFlags: Number.parseInt(tc.traceparent.slice(53, 55), 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(tc.tracestate ? { traceState: new TraceState(tc.tracestate) } : {}),
  };
}

/** The TraceContext naming `span`, with the `tracestate` the cause sent (kept verbatim). */
export function traceContextOf(span: SpanContext, tracestate: string | undefined): TraceContext {
  const flags = (span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
  const traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
