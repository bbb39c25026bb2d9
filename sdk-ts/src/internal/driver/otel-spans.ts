/**
 * The span of each event's turn on OpenTelemetry's API, loaded only once `@opentelemetry/api` was
 * imported: a consumer span `invoke_agent {agentName}` (the GenAI agent span, with the messaging
 * attributes of a consumer), child of the event's `traceparent` read as W3C says whatever propagator the
 * application configured (CAP's wire format is W3C), active while its handler runs, ended with the
 * turn's outcome. Without an SDK registered the API's spans record nothing and carry their parent's
 * context, so requests send the event's. It must never throw into the driver.
 */
import type * as OtelApi from "@opentelemetry/api";
import type { Event, TraceContext } from "../../types.js";
import { SDK_VERSION } from "../../version.js";
import { validTraceContext } from "../client/trace-headers.js";
import type { SpanEnding, Spans, TurnSpan } from "./spans.js";

type Api = typeof OtelApi;

/** The spans on `module` (the imported package), or `undefined` when it is not the API this needs. */
export function otelSpans(module: unknown): Spans | undefined {
  const m = module as Partial<Api> & { default?: Partial<Api> };
  const api = typeof m.trace === "object" ? m : m.default;
  if (!api || typeof api.trace !== "object" || typeof api.createTraceState !== "function") return undefined;
  return new OtelSpans(api as Api);
}

/** The ids and flags of a valid `traceparent`. */
function parseTraceparent(value: string): { traceId: string; parentId: string; flags: number } {
  const [, traceId = "", parentId = "", flags = "00"] = value.split("-");
  return { traceId, parentId, flags: Number.parseInt(flags, 16) };
}

/** `00-<traceId>-<spanId>-<flags>`: the version a driver sends for a span of its own. */
export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, "0")}`;
}

class OtelSpans implements Spans {
  readonly #api: Api;
  readonly #tracer: OtelApi.Tracer;

  constructor(api: Api) {
    this.#api = api;
    this.#tracer = api.trace.getTracer("@commonly/cap-sdk", SDK_VERSION);
  }

  start(event: Event, agentName: string | undefined): TurnSpan | undefined {
    try {
      return this.#start(event, agentName);
    } catch {
      return undefined;
    }
  }

  #start(event: Event, agentName: string | undefined): TurnSpan | undefined {
    const api = this.#api;
    const received = validTraceContext(event.traceContext);
    const parent = received && parseTraceparent(received.traceparent);
    const parentState = received?.tracestate ? api.createTraceState(received.tracestate) : undefined;
    // A new root without a received context: never the context the driver loop happens to run in.
    const parentContext = parent
      ? api.trace.setSpanContext(api.ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.parentId,
          traceFlags: parent.flags,
          isRemote: true,
          ...(parentState ? { traceState: parentState } : {}),
        })
      : api.ROOT_CONTEXT;
    const attributes: OtelApi.Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": event.podId,
      "messaging.system": "cap",
      "messaging.operation.type": "process",
      "messaging.message.id": event.id,
      "cap.event.type": event.type,
      "cap.event.attempts": event.attempts,
      ...(agentName ? { "gen_ai.agent.name": agentName, "messaging.destination.name": agentName } : {}),
    };
    const name = agentName ? `invoke_agent ${agentName}` : "invoke_agent";
    const span = this.#tracer.startSpan(name, { kind: api.SpanKind.CONSUMER, attributes }, parentContext);
    const active = api.trace.setSpan(parentContext, span);
    // The received `tracestate` goes on as it came while the span keeps its parent's (CAP-TRACE-10):
    // OpenTelemetry's own serialisation would drop optional whitespace.
    const wire = (sc: OtelApi.SpanContext): TraceContext | undefined => {
      if (!api.trace.isSpanContextValid(sc)) return received;
      const traceparent = formatTraceparent(sc.traceId, sc.spanId, sc.traceFlags);
      const tracestate = sc.traceState === parentState ? received?.tracestate : sc.traceState?.serialize();
      return tracestate ? { traceparent, tracestate } : { traceparent };
    };
    const own = span.spanContext();
    // No SDK registered and nothing received: a span of no trace, with nothing to carry.
    if (!received && !api.trace.isSpanContextValid(own)) return undefined;
    const context = wire(own);
    return {
      context,
      current: () => {
        const now = api.trace.getSpanContext(api.context.active());
        return now && now !== own && now.traceId === own.traceId ? wire(now) : context;
      },
      run: (fn) => api.context.with(active, fn),
      end: (ending) => {
        try {
          endSpan(api, span, ending);
        } catch {
          // A broken SDK must not break the driver.
        }
      },
    };
  }
}

function endSpan(api: Api, span: OtelApi.Span, ending: SpanEnding): void {
  if ("acked" in ending) {
    span.setAttribute("cap.ack.outcome", ending.acked.outcome);
    if (ending.duplicate) span.setAttribute("cap.ack.duplicate", true);
    if (ending.acked.outcome === "cancelled")
      span.setAttribute("cap.cancel.reason", ending.acked.reason ?? "requested");
  } else if ("failed" in ending) {
    const error = ending.failed;
    if (error instanceof Error) span.recordException(error);
    span.setAttribute("error.type", ending.failureClass);
    span.setStatus({
      code: api.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  } else {
    const why = ending.givenUp === "lost" ? "lease_lost" : "driver_stopped";
    span.setAttribute("error.type", why);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: why });
  }
  span.end();
}
