/**
 * The body of a poll answer, `{"events":[…]}`, written as JSON text. Each event is the CAP Event: `id`,
 * `_id` (the same value: a non-normative alias that deployed production drivers read), `type`, `podId`,
 * `payload`, `attempts`, `createdAt`, while leased `leaseExpiresAt`, and `supersedes` when the event's
 * message cancelled deliveries (double texting, feature `cancel`), and `traceContext` when the event has one
 * (feature `trace-context`; a profile that does not advertise it leaves it out). The payload is written as the
 * JSON text the store holds (DeliveredEvent), never parsed and stringified again on the way: that round
 * trip, and the garbage it left, were a real share of a batch-ack drain's CPU.
 *
 * Must never: write anything but valid JSON, or an event `JSON.parse` would read differently from the
 * object `{id, _id, type, podId, payload, attempts, createdAt, leaseExpiresAt?, supersedes?, traceContext?}` (the
 * test holds the two against each other).
 */
import { iso } from "../clock.js";
import type { DeliveredEvent } from "../kernel.js";

/** `,"traceContext":{…}` for an event that carries one, else nothing. */
function traceContextJson(e: DeliveredEvent): string {
  if (!e.traceparent) return "";
  const state = e.tracestate ? `,"tracestate":${JSON.stringify(e.tracestate)}` : "";
  return `,"traceContext":{"traceparent":${JSON.stringify(e.traceparent)}${state}}`;
}

/**
 * `{"events":[…]}` for `events`; `typeOf` gives each event's wire `type` (a profile may rename types);
 * `withTrace` false leaves `traceContext` out (a profile that does not advertise `trace-context`).
 */
export function eventsAnswer(
  events: readonly DeliveredEvent[],
  typeOf: (e: DeliveredEvent) => string = (e) => e.type,
  withTrace = true,
): string {
  let out = '{"events":[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as DeliveredEvent;
    const id = JSON.stringify(e.id);
    out +=
      `${i === 0 ? "" : ","}{"id":${id},"_id":${id},"type":${JSON.stringify(typeOf(e))},` +
      `"podId":${JSON.stringify(e.podId)},"payload":${e.payloadJson},` +
      `"attempts":${JSON.stringify(e.attempts)},"createdAt":"${iso(e.createdAt)}"` +
      `${e.leaseExpiresAt !== null ? `,"leaseExpiresAt":"${iso(e.leaseExpiresAt)}"` : ""}` +
      `${e.supersedes && e.supersedes.length > 0 ? `,"supersedes":${JSON.stringify(e.supersedes)}` : ""}` +
      `${withTrace ? traceContextJson(e) : ""}}`;
  }
  return `${out}]}`;
}
