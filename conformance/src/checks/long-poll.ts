/**
 * Long-poll: a poll answers at once when something is ready (every kernel), holds while nothing is
 * (kernels advertising `long-poll`), and wakes when an event arrives during the wait.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, drain, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause } from "../timing.js";

const waitFor = (ctx: CheckContext, want: number) =>
  Math.max(1, Math.min(want, ctx.timing.maxWaitSeconds ?? want, 25));

export const longPollChecks = [
  defineCheck({
    id: "long-poll.answers-at-once-when-ready",
    family: "long-poll",
    title: "answers a poll at once when an event is ready, whatever its waitSeconds",
    verifies: ["CAP-POLL-1"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      await trigger(ctx, "b", nonce);
      const b = ctx.as("b");
      const deadline = now() + arrival(ctx.timing);
      const limit = Math.round(1000 * ctx.timing.timeScale);
      for (;;) {
        const t0 = now();
        const res = await b.poll({ waitSeconds: 5, limit: 50 });
        const took = now() - t0;
        const events = eventsOf(ctx, res);
        ctx.assert("CAP-POLL-1", took <= limit, {
          message: `a poll with waitSeconds=5 took ${Math.round(took)} ms while an event was ready`,
          expected: `an answer within ${limit} ms`,
          actual: `${Math.round(took)} ms, ${events.length} events`,
          exchange: res,
        });
        for (const e of events) await b.ack(e.id);
        if (events.some((e) => carries(e, nonce))) return;
        if (now() > deadline) ctx.incomplete("the triggered event never arrived");
      }
    },
  }),
  defineCheck({
    id: "long-poll.holds-when-empty",
    family: "long-poll",
    title: "holds a poll with waitSeconds while no event is ready, then answers with what it has",
    verifies: ["CAP-POLL-2"],
    feature: "long-poll",
    queue: true,
    async run(ctx: CheckContext) {
      const W = waitFor(ctx, 2);
      const b = ctx.as("b");
      for (let tries = 0; tries < 3; tries++) {
        await drain(ctx, "b");
        const t0 = now();
        const res = await b.poll({ waitSeconds: W });
        const took = now() - t0;
        const events = eventsOf(ctx, res);
        for (const e of events) await b.ack(e.id);
        if (events.length > 0) continue; // something became ready during the wait: legitimate, try again
        ctx.expect("CAP-POLL-2", took >= W * 1000 - 50, {
          message: `an empty queue answered a poll with waitSeconds=${W} after ${Math.round(took)} ms`,
          expected: `held for ${W * 1000} ms`,
          actual: `${Math.round(took)} ms`,
          exchange: res,
        });
        return;
      }
      ctx.incomplete("events kept arriving in agent b's queue; could not observe an empty long-poll");
    },
  }),
  defineCheck({
    id: "long-poll.wakes-on-event",
    family: "long-poll",
    title: "answers a held poll when an event becomes ready, within a second",
    verifies: ["CAP-POLL-2", "CAP-POLL-3"],
    feature: "long-poll",
    queue: true,
    async run(ctx: CheckContext) {
      const W = waitFor(ctx, 10);
      const b = ctx.as("b");
      await drain(ctx, "b");
      const nonce = ctx.nonce();
      const t0 = now();
      const held = b.poll({ waitSeconds: W, limit: 50 }).then((res) => ({ res, at: now() }));
      // A head start so the kernel is already holding the poll when the event is made. The verdict does
      // not depend on it: if the post wins the race, the poll must answer at once anyway (CAP-POLL-1).
      await pause(150);
      await trigger(ctx, "b", nonce);
      const posted = now();
      const { res, at } = await held;
      const events = eventsOf(ctx, res);
      for (const e of events) await b.ack(e.id);
      const woke = events.some((e) => carries(e, nonce));
      ctx.assert("CAP-POLL-2", woke && at - t0 < W * 1000 - 250, {
        message: woke
          ? `the held poll answered only at the end of its ${W} s wait`
          : "the held poll answered without the event that became ready",
        expected: "an answer carrying the new event, before the wait ends",
        actual: `${Math.round(at - t0)} ms, ${events.length} events`,
        exchange: res,
      });
      const latency = Math.max(0, at - posted);
      ctx.expect("CAP-POLL-3", latency <= 1000 * ctx.timing.timeScale, {
        message: `the held poll answered ${Math.round(latency)} ms after the event became ready`,
        expected: "within 1000 ms",
        actual: `${Math.round(latency)} ms`,
        exchange: res,
      });
    },
  }),
];
