/**
 * The `receive` span of each poll: a consumer span, child of the poll's request span, with one LINK per
 * claimed event to the context the event carries — a poll may claim events of several traces, so they are
 * links, not parents (the messaging conventions' batch receive). Installed only when tracing is on.
 * Must never change what a poll answers, or its timing beyond recording the span.
 */
import { type Link, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { DeliveredEvent, Kernel } from "../kernel.js";
import type { TraceContext } from "../services/trace-context.js";
import {
  CAP_SYSTEM,
  MESSAGING_BATCH_MESSAGE_COUNT,
  MESSAGING_DESTINATION_NAME,
  MESSAGING_MESSAGE_ID,
  MESSAGING_OPERATION_NAME,
  MESSAGING_OPERATION_TYPE,
  MESSAGING_SYSTEM,
} from "./messaging.js";
import { spanContextOf } from "./span-context.js";

type EventsService = Kernel["events"];

/** The links of a poll's answer: one per event that carries a trace context. */
export function linksOf(events: readonly DeliveredEvent[]): Link[] {
  const links: Link[] = [];
  for (const e of events) {
    // The stored record's columns (the wire's `traceContext` is made from them in profiles/).
    const { traceparent, tracestate } = e;
    if (!traceparent) continue;
    const tc: TraceContext = tracestate ? { traceparent, tracestate } : { traceparent };
    links.push({ context: spanContextOf(tc), attributes: { [MESSAGING_MESSAGE_ID]: e.id } });
  }
  return links;
}

export function tracedEvents(events: EventsService, tracer: Tracer): EventsService {
  const poll: EventsService["poll"] = (caller, input) =>
    tracer.startActiveSpan(
      "receive",
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          [MESSAGING_SYSTEM]: CAP_SYSTEM,
          [MESSAGING_OPERATION_TYPE]: "receive",
          [MESSAGING_OPERATION_NAME]: "receive",
          [MESSAGING_DESTINATION_NAME]: caller.agentName,
        },
      },
      async (span) => {
        try {
          const delivered = await events.poll(caller, input);
          span.setAttribute(MESSAGING_BATCH_MESSAGE_COUNT, delivered.length);
          span.addLinks(linksOf(delivered));
          return delivered;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
          throw err;
        } finally {
          span.end();
        }
      },
    );
  return { ...events, poll };
}
