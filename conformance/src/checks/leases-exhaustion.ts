/**
 * The end of an event's life without an ack: `maxAttempts` deliveries, `attempts` counting 1, 2, … on the
 * way, then no more deliveries — and no message posted into the pod on the driver's behalf.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { tolerance } from "../timing.js";
import { type Delivery, firstDelivery, leaseMs, nextDelivery } from "./leases.js";

const maxAttempts = (ctx: CheckContext): number =>
  ctx.timing.maxAttempts ??
  ctx.incomplete(
    "maxAttempts unknown: the kernel has no /info and no --max-attempts (or fixture maxAttempts) was given",
  );

/** Messages newer than `since` that this run did not post (every message the suite posts carries its run id). */
async function foreignPostsSince(ctx: CheckContext, since: string): Promise<unknown[] | undefined> {
  const res = await ctx.as("a").read(ctx.cast.shared, { limit: 100 });
  const list = (res.body as { messages?: { id: string; content: string }[] } | undefined)?.messages;
  if (res.status !== 200 || !Array.isArray(list)) return undefined;
  const cut = list.findIndex((m) => m.id === since);
  if (cut < 0) return undefined;
  return list.slice(0, cut).filter((m) => !String(m.content).includes(`capc-${ctx.run.runId}`));
}

export const exhaustionChecks = [
  defineCheck({
    id: "leases.max-attempts",
    family: "leases",
    title:
      "delivers an unacked event maxAttempts times with attempts 1, 2, …, then never again, posting nothing",
    verifies: ["CAP-LEASE-4", "CAP-LEASE-3", "CAP-EVT-5", "CAP-PULL-2"],
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const M = maxAttempts(ctx);
      const { nonce, first, messageId } = await firstDelivery(ctx);
      const deliveries: Delivery[] = [first];
      while (deliveries.length < M) {
        const prev = deliveries[deliveries.length - 1] as Delivery;
        const d = await nextDelivery(ctx, nonce, prev.answeredAt + L + tolerance(ctx.timing));
        ctx.assert("CAP-LEASE-3", d !== undefined, {
          message: `delivery ${deliveries.length + 1} of ${M} did not come within the lease + tolerance`,
          expected: `${M} deliveries`,
          actual: `${deliveries.length} deliveries`,
        });
        deliveries.push(d);
      }
      const counts = deliveries.map((d) => d.event.attempts);
      ctx.expect(
        "CAP-EVT-5",
        counts.every((n, i) => n === i + 1),
        {
          message: "attempts did not count the deliveries",
          expected: counts.map((_, i) => i + 1).join(", "),
          actual: counts.join(", "),
          exchange: deliveries.find((d, i) => d.event.attempts !== i + 1)?.answer ?? first.answer,
        },
      );
      const last = deliveries[deliveries.length - 1] as Delivery;
      const extra = await nextDelivery(ctx, nonce, last.answeredAt + L + tolerance(ctx.timing));
      ctx.expect("CAP-LEASE-4", extra === undefined, {
        message: `the event was delivered again after ${M} deliveries (maxAttempts ${M})`,
        expected: "no delivery after the last lease ends",
        actual: extra?.event,
        ...(extra ? { exchange: extra.answer } : {}),
      });
      if (extra) await ctx.as("b").ack(extra.event.id);
      if (!ctx.has("message-read") || !messageId) {
        ctx.note("CAP-PULL-2 not verified: needs the message-read feature and a protocol trigger");
        return;
      }
      const foreign = await foreignPostsSince(ctx, messageId);
      if (foreign === undefined)
        ctx.note("CAP-PULL-2 not verified: the trigger message is not among the last 100");
      else
        ctx.expect("CAP-PULL-2", foreign.length === 0, {
          message: "a message appeared in the pod after the event failed, posted by no check",
          expected: "no message",
          actual: foreign,
        });
    },
  }),
];
