/**
 * The `send` producer span around an enqueue (services/trace-context.ts's hook): a child of the request's
 * span (or of the received context where no route span is active, or a new root when there was none),
 * active while the events are written, and named by the `traceparent` the events carry — so a driver's
 * span has a parent the kernel exported. The store's `enqueueEvents` adds its event count (store-spans.ts).
 * Must never hand out a span that is not exported (not sampled), or change the trace-id or sampled flag
 * the cause sent: then the events carry the received context verbatim (CAP-TRACE-2, CAP-TRACE-3).
 */
import {
  type Context,
  context,
  createContextKey,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { EnqueueTraceHook, TraceContext } from "../services/trace-context.js";
import {
  CAP_SYSTEM,
  MESSAGING_BATCH_MESSAGE_COUNT,
  MESSAGING_OPERATION_NAME,
  MESSAGING_OPERATION_TYPE,
  MESSAGING_SYSTEM,
} from "./messaging.js";
import { isSampled, spanContextOf, traceContextOf, traceIdOfContext } from "./span-context.js";

/** The `send` span an enqueue runs under, for the store to count the events it writes. */
const SEND_SPAN = createContextKey("cap-kernel send span");

export interface SendCount {
  span: Span;
  events: number;
}

/** The `send` span of the enqueue running now, if any. */
export const activeSend = (): SendCount | undefined =>
  context.active().getValue(SEND_SPAN) as SendCount | undefined;

/** The parent of a `send` span: the active span (the request's), else the received context, else none. */
function parentOf(received: TraceContext | undefined): Context {
  const active = context.active();
  if (trace.getSpan(active) !== undefined) return active;
  return received ? trace.setSpanContext(ROOT_CONTEXT, spanContextOf(received)) : ROOT_CONTEXT;
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof (v as { then?: unknown } | null)?.then === "function";

function failed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
}

export function sendSpanHook(tracer: Tracer): EnqueueTraceHook {
  return <T>(received: TraceContext | undefined, enqueue: (ctx: TraceContext | undefined) => T): T => {
    const parent = parentOf(received);
    const span = tracer.startSpan(
      "send",
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          [MESSAGING_SYSTEM]: CAP_SYSTEM,
          [MESSAGING_OPERATION_TYPE]: "send",
          [MESSAGING_OPERATION_NAME]: "send",
        },
      },
      parent,
    );
    const own = span.spanContext();
    const sampled = (own.traceFlags & TraceFlags.SAMPLED) !== 0;
    const named =
      span.isRecording() &&
      sampled &&
      (received === undefined || (traceIdOfContext(received) === own.traceId && isSampled(received)));
    const carried = named ? traceContextOf(own, received?.tracestate) : received;
    const count: SendCount = { span, events: 0 };
    const end = () => {
      span.setAttribute(MESSAGING_BATCH_MESSAGE_COUNT, count.events);
      span.end();
    };
    let result: T;
    try {
      result = context.with(trace.setSpan(parent, span).setValue(SEND_SPAN, count), () => enqueue(carried));
    } catch (err) {
      failed(span, err);
      end();
      throw err;
    }
    if (!isThenable(result)) {
      end();
      return result;
    }
    return result.then(
      (value) => {
        end();
        return value;
      },
      (err: unknown) => {
        failed(span, err);
        end();
        throw err;
      },
    ) as T;
  };
}
