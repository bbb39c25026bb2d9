/**
 * The pino mixin of a tracing kernel: every log line written while a span is active carries its
 * `trace_id` and `span_id` (the OpenTelemetry log field names), so a line leads to its trace.
 * Must never add anything else (never `tracestate` or `baggage`: they may carry a caller's data).
 */
import { context, isSpanContextValid, trace } from "@opentelemetry/api";

/** A new object each call: pino merges the line's own fields into what the mixin returns. */
export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active())?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}
