/**
 * Trace context forwarded (`trace-context`, for a driver run with `--claim trace-context`): a human's
 * @mention posted with a `traceparent` and a `tracestate` gives the event a `traceContext`, and the fault
 * layer holds the driver's reply for two leases so it renews and watches while it works. Every request it
 * makes on behalf of the event — renewals, watches, releases, its reply, memory, the ack — must carry a
 * traceparent with the event's trace-id (CAP-TRACE-9) and the event's tracestate unchanged (CAP-TRACE-10).
 * A driver that sends its own span-id (it records spans) should do so on all of them, never the event's
 * parent-id on some (CAP-TRACE-11, a SHOULD); one that sends the event's on all records no spans, which
 * CAP allows. A batch ack settles several traces, so it is not judged.
 */
import { randomBytes } from "node:crypto";
import { freshTraceparent, parseTraceparent, traceContextOf } from "../../checks/trace-context.js";
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { RouteKind, WireExchange } from "../fault-proxy.js";
import { acksOf, polledEvents } from "./support.js";

/** Requests that are on behalf of one event: by the event id in their path. */
const OF_EVENT: RouteKind[] = ["ack", "renew", "release", "cancel", "cancel-watch"];
/** Requests a handler makes while it works on the event: by time, between its delivery and its ack. */
const WHILE_HANDLING: RouteKind[] = ["post", "memory", "memory-sync", "decisions", "read-messages"];

const show = (x: WireExchange) =>
  `${x.method} ${new URL(x.url).pathname} traceparent: ${x.requestHeaders.traceparent ?? "(none)"}, tracestate: ${x.requestHeaders.tracestate ?? "(none)"}`;

export const traceChecks = [
  defineDriverCheck({
    id: "driver.trace.forwards-context",
    family: "trace",
    title:
      "sends the event's trace-id and tracestate on every request it makes for the event (renew, watch, reply, ack), and a span-id of its own on all or none",
    verifies: ["CAP-TRACE-9", "CAP-TRACE-10", "CAP-TRACE-11"],
    feature: "trace-context",
    async run(ctx: DriverContext) {
      const hold = ctx.ms(Math.max(1500, 2 * ctx.leaseMs));
      let held = false;
      await ctx.begin({
        script: {
          before(req) {
            if (req.kind !== "post" || held) return undefined;
            held = true;
            return { kind: "delay", ms: hold };
          },
        },
      });
      const pod = ctx.pod();
      const headers = {
        traceparent: freshTraceparent(),
        tracestate: `ccdrv=${randomBytes(4).toString("hex")},vendor@cap=conformance`,
      };
      const messageId = await ctx.world.sayWith(pod.id, `@${ctx.agent.name} ${ctx.nonce()}`, headers);
      if (!messageId) ctx.incomplete("the kernel the suite plays refused a human post with trace headers");
      const event = await ctx.world.eventFor(ctx.agent, pod.id, messageId);
      if (!event) ctx.incomplete(`the kernel enqueued no event for the message in pod ${pod.id}`);
      const acked = await ctx.acked(event.id, hold + ctx.handleMs);
      const delivery = ctx.wire("poll").find((x) => polledEvents(x).some((e) => e.id === event.id));
      const seen = delivery ? polledEvents(delivery).find((e) => e.id === event.id) : undefined;
      const tc = traceContextOf(seen);
      const want = parseTraceparent(tc?.traceparent);
      if (!delivery || !want)
        ctx.incomplete(
          `the driver was not delivered ${event.id} with a traceContext (the kernel the suite plays must advertise trace-context)`,
        );
      const ack = acksOf(ctx, event.id).find((x) => x.status === 200);
      if (!acked) ctx.note(`the driver did not ack ${event.id}; the requests it made until then are judged`);
      if (ack?.kind === "batch-ack")
        ctx.note(`the driver acked ${event.id} in a batch ack, which is not judged`);
      const end = ack?.endAt ?? Date.now();
      const requests = [
        ...ctx.wire(...OF_EVENT).filter((x) => x.eventId === event.id),
        ...ctx.wire(...WHILE_HANDLING).filter((x) => x.at >= delivery.at && x.at <= end),
      ].sort((x, y) => x.at - y.at);
      if (requests.length === 0) ctx.incomplete(`the driver made no request on behalf of ${event.id}`);
      const kinds = new Map<string, number>();
      for (const x of requests) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
      ctx.note(
        `judged the ${requests.length} requests made for ${event.id}: ${[...kinds].map(([k, n]) => `${k} ×${n}`).join(", ")}`,
      );
      const wrongId = requests.filter(
        (x) => parseTraceparent(x.requestHeaders.traceparent)?.traceId !== want.traceId,
      );
      ctx.expect("CAP-TRACE-9", wrongId.length === 0, {
        message: `${wrongId.length} of the ${requests.length} requests the driver made on behalf of ${event.id} carried no traceparent with its trace-id`,
        expected: `traceparent: 00-${want.traceId}-<the event's parent-id or a span of the driver's>-<flags>`,
        actual: wrongId.slice(0, 5).map(show),
        wire: wrongId,
      });
      // The tracestate goes with the event's traceparent: judged where that was sent.
      const traced = requests.filter((x) => !wrongId.includes(x));
      const state = typeof tc?.tracestate === "string" ? tc.tracestate : undefined;
      const altered = state ? traced.filter((x) => x.requestHeaders.tracestate !== state) : [];
      ctx.expect("CAP-TRACE-10", altered.length === 0, {
        message: `${altered.length} of the ${traced.length} requests the driver made on behalf of ${event.id} with its traceparent did not carry its tracestate unchanged`,
        expected: `tracestate: ${state}`,
        actual: altered.slice(0, 5).map(show),
        wire: altered,
      });
      const own = traced.filter(
        (x) => parseTraceparent(x.requestHeaders.traceparent)?.parentId !== want.parentId,
      );
      if (own.length === 0)
        ctx.note(
          `the driver sent the event's traceparent as it is on every request: it records no spans, and CAP-TRACE-11 asks nothing of it`,
        );
      const verbatim = own.length > 0 ? traced.filter((x) => !own.includes(x)) : [];
      ctx.expect("CAP-TRACE-11", verbatim.length === 0, {
        message: `the driver sent a span-id of its own on ${own.length} requests for ${event.id} but the event's parent-id on ${verbatim.length}: those were made outside its handling span`,
        expected: `a parent-id other than the event's ${want.parentId} on every request on behalf of the event`,
        actual: verbatim.slice(0, 5).map(show),
        wire: [...verbatim, ...own].slice(0, 10),
      });
    },
  }),
];
