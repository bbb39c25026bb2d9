/**
 * An event's trace context never changes (`trace-context`): the delivery a poll claims, the same poll
 * replayed by its `pollId`, the delivery after a release or a lease that ended, and the operator's queue
 * view (when the fixture names one) all show the same `traceContext`.
 */
import type { WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, eventsOf } from "../queue.js";
import { arrival, now, pause, pollInterval, tolerance, until } from "../timing.js";
import { queueView } from "./human-surface.js";
import { leaseMs, nextDelivery } from "./leases.js";
import { sameJson } from "./support.js";
import { freshTraceparent, members } from "./trace-context.js";
import { agentPost, showTrace } from "./trace-support.js";

const pollIdOf = (ctx: CheckContext) =>
  ctx
    .nonce()
    .replace(/[^A-Za-z0-9_-]/g, "")
    .slice(-64);

/** Poll as b (with `pollId` when given) until the event carrying `nonce` comes; other events are acked. */
async function claim(
  ctx: CheckContext,
  nonce: string,
  pollId?: string,
): Promise<{ event: WireEvent; answer: Answer; answeredAt: number }> {
  const b = ctx.as("b");
  const deadline = now() + arrival(ctx.timing);
  for (;;) {
    const answer = await b.poll({ limit: 50, ...(pollId ? { pollId } : {}) });
    const answeredAt = now();
    const events = eventsOf(ctx, answer);
    const event = events.find((e) => carries(e, nonce));
    for (const e of events) if (e !== event) await b.ack(e.id);
    if (event) return { event, answer, answeredAt };
    if (answeredAt > deadline) ctx.incomplete("setup failed: the triggered event never arrived");
    await pause(pollInterval(ctx.timing));
  }
}

export const traceStableChecks = [
  defineCheck({
    id: "trace.stable",
    family: "trace",
    title:
      "shows an event's traceContext unchanged on a replayed poll, on its next delivery and in the operator's queue view",
    verifies: ["CAP-TRACE-5"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const { nonce } = await agentPost(ctx, {
        traceparent: freshTraceparent(),
        tracestate: members(2).join(","),
      });
      const pollId = ctx.has("poll-replay") ? pollIdOf(ctx) : undefined;
      const first = await claim(ctx, nonce, pollId);
      const want = first.event.traceContext;
      ctx.about(first.answer);
      if (want === undefined)
        ctx.incomplete(
          "the event of a post with a valid traceparent carries no traceContext (CAP-TRACE-7's check judges that)",
        );
      const differs = (what: string, e: WireEvent | undefined, answer?: Answer) =>
        ctx.expect("CAP-TRACE-5", e !== undefined && sameJson(e.traceContext, want), {
          message: `${what} shows another traceContext than the first delivery`,
          expected: want,
          actual: showTrace(e),
          ...(answer ? { exchange: answer } : {}),
        });
      if (pollId) {
        const replay = await b.poll({ limit: 50, pollId });
        const again = eventsOf(ctx, replay).find((e) => e.id === first.event.id);
        differs("the replayed poll (the same pollId)", again, replay);
      }
      const { id, attempts } = first.event;
      if (ctx.has("release")) {
        const res = await b.release(id, { attempts });
        ctx.setupStatus("CAP-REL-1", res, 200, "releasing the delivery to have it delivered again");
      } else await until(first.answeredAt + leaseMs(ctx) + 50);
      const next = await nextDelivery(ctx, nonce, now() + leaseMs(ctx) + tolerance(ctx.timing));
      if (!next) ctx.incomplete(`the event did not come back after delivery ${attempts}`);
      differs(`delivery ${next.event.attempts} of the event`, next.event, next.answer);
      const view = await queueView(ctx);
      const listed = view?.events.get(id);
      if (!view || !listed)
        ctx.note(
          "the operator's queue view was not checked: no fixture human, its queue route answered otherwise, or it does not list the event",
        );
      else
        ctx.expect("CAP-TRACE-5", sameJson(listed.traceContext, want), {
          message: "the operator's queue view shows the event with another traceContext than its deliveries",
          expected: want,
          actual: listed.traceContext ?? "no traceContext",
          exchange: view.answer,
        });
      await b.ack(id);
    },
  }),
];
