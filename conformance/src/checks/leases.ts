/**
 * Leases: a poll claims what it returns for exactly `leaseSeconds`; nobody else sees a leased event; an
 * unacked event comes back at the first poll after its lease with `attempts` one higher, and stops coming
 * back after `maxAttempts` deliveries. Every wait here runs to a deadline computed from the advertised
 * lease; nothing sleeps a guessed time.
 */
import type { WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval, tolerance } from "../timing.js";

/** A delivery as observed: the event and when the poll that returned it was sent and answered. */
export interface Delivery {
  event: WireEvent;
  sentAt: number;
  answeredAt: number;
  answer: Answer;
}

export const leaseMs = (ctx: CheckContext): number =>
  ctx.timing.leaseMs ??
  ctx.incomplete("lease duration unknown: the kernel has no /info and no --lease-seconds was given");

/** Poll as b until an event carrying one of `nonces` is delivered or the deadline passes; ack everything else. */
export async function nextDelivery(
  ctx: CheckContext,
  nonces: string | string[],
  deadline: number,
): Promise<Delivery | undefined> {
  const b = ctx.as("b");
  const mine = (e: WireEvent) => (Array.isArray(nonces) ? nonces : [nonces]).some((n) => carries(e, n));
  for (;;) {
    const sentAt = now();
    const answer = await b.poll({ limit: 50 });
    const answeredAt = now();
    let hit: WireEvent | undefined;
    for (const e of eventsOf(ctx, answer)) {
      if (mine(e)) hit = e;
      else
        await b.ack(e.id, { result: { outcome: "skipped", reason: `conformance ${ctx.canaryUrl("ack")}` } });
    }
    if (hit) return { event: hit, sentAt, answeredAt, answer };
    if (answeredAt >= deadline) return undefined;
    await pause(pollInterval(ctx.timing));
  }
}

export async function firstDelivery(
  ctx: CheckContext,
): Promise<{ nonce: string; first: Delivery; messageId?: string }> {
  const nonce = ctx.nonce();
  const messageId = await trigger(ctx, "b", nonce);
  const first = await nextDelivery(ctx, nonce, now() + arrival(ctx.timing));
  if (!first) ctx.incomplete("the triggered event never arrived");
  return { nonce, first, ...(messageId ? { messageId } : {}) };
}

export const leaseChecks = [
  defineCheck({
    id: "leases.invisible-while-leased",
    family: "leases",
    title: "never returns a leased event to another poll, and never hands one event to two concurrent polls",
    verifies: ["CAP-LEASE-2", "CAP-LEASE-6"],
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const { nonce, first } = await firstDelivery(ctx);
      const b = ctx.as("b");
      const urls = ctx.run.settings.urls.length;
      for (let i = 0; i < Math.max(2, urls) && now() < first.sentAt + L - 100; i++) {
        const res = await b.poll({ limit: 50 });
        const again = eventsOf(ctx, res).find((e) => carries(e, nonce));
        ctx.expect("CAP-LEASE-2", !again || now() >= first.sentAt + L, {
          message: `a poll returned an event whose lease (${L} ms) was still running`,
          expected: "not returned before the lease ends",
          actual: again,
          exchange: res,
        });
        for (const e of eventsOf(ctx, res)) if (!carries(e, nonce)) await b.ack(e.id);
      }
      await b.ack(first.event.id);
      // Several polls at once, spread over the --url replicas: the new event goes to one of them at most.
      const race = ctx.nonce();
      await trigger(ctx, "b", race);
      const answers = await Promise.all(
        Array.from({ length: Math.max(4, urls * 2) }, () => b.poll({ limit: 50 })),
      );
      const holders = answers.filter((a) => eventsOf(ctx, a).some((e) => carries(e, race)));
      ctx.expect("CAP-LEASE-6", holders.length <= 1, {
        message: `${holders.length} concurrent polls were handed the same event`,
        expected: "at most one",
        actual: holders.length,
        ...(holders[1] ? { exchange: holders[1] } : {}),
      });
      for (const a of answers) for (const e of eventsOf(ctx, a)) await b.ack(e.id);
    },
  }),
  defineCheck({
    id: "leases.redelivered-after-expiry",
    family: "leases",
    title: "redelivers an unacked event at the first poll after its lease ends, same id, attempts + 1",
    verifies: ["CAP-LEASE-1", "CAP-LEASE-3", "CAP-EVT-4", "CAP-EVT-5"],
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const { nonce, first } = await firstDelivery(ctx);
      const again = await nextDelivery(ctx, nonce, first.answeredAt + L + tolerance(ctx.timing));
      ctx.assert("CAP-LEASE-3", again !== undefined, {
        message: `the unacked event was not redelivered within the lease (${L} ms) + ${tolerance(ctx.timing)} ms`,
        expected: "redelivery at the first poll after the lease ends",
        actual: "no redelivery",
      });
      ctx.expect("CAP-LEASE-1", again.answeredAt >= first.sentAt + L - 25, {
        message: `redelivered ${Math.round(again.answeredAt - first.sentAt)} ms after the claim; the lease is ${L} ms`,
        expected: `no redelivery before ${L} ms`,
        actual: `${Math.round(again.answeredAt - first.sentAt)} ms`,
        exchange: again.answer,
      });
      ctx.expect("CAP-EVT-4", again.event.id === first.event.id, {
        message: "the redelivery carries a different id",
        expected: first.event.id,
        actual: again.event.id,
        exchange: again.answer,
      });
      ctx.expect("CAP-EVT-5", again.event.attempts === first.event.attempts + 1, {
        message: "attempts did not go up by one on redelivery",
        expected: first.event.attempts + 1,
        actual: again.event.attempts,
        exchange: again.answer,
      });
      await ctx.as("b").ack(again.event.id);
    },
  }),
];
