/**
 * Adversity on the poll: an outage window in which every poll is answered `503` (code `unavailable`) or
 * `429` (a code no registry has), each with `Retry-After: 2`, then the kernel answers again; and a
 * long-poll whose connection breaks mid-wait. The driver's poll rate stays at most one a second during
 * the window (CAP-DRV-11), it never polls before the `Retry-After` it was given (CAP-DRV-12), and it comes
 * back and handles the event that waited (CAP-DRV-13).
 */
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { ProxyScript, WireExchange } from "../fault-proxy.js";
import { pollsBetween } from "./support.js";

const RETRY_AFTER = 2;

/** Wait for the agent's event of a human message in its first pod to be acked; judge CAP-DRV-13. */
async function expectResumed(ctx: DriverContext, messageId: string, timeoutMs: number, after: string) {
  const event = await ctx.world.eventFor(ctx.agent, ctx.pod().id, messageId);
  if (!event) return ctx.incomplete("the kernel enqueued no event");
  const acked = await ctx.acked(event.id, timeoutMs);
  ctx.expect("CAP-DRV-13", acked, {
    message: `${after}, the driver did not handle the waiting event ${event.id} within ${timeoutMs} ms${ctx.processNote()}`,
    expected: `polls again, then POST /events/${event.id}/ack`,
    actual: acked ? "acked" : "no ack",
  });
}

export const backoffChecks = [
  defineDriverCheck({
    id: "driver.backoff.outage",
    family: "backoff",
    title:
      "during a window of 503 and 429 answers with Retry-After it polls at most once a second, never before Retry-After, and resumes after",
    verifies: ["CAP-DRV-11", "CAP-DRV-12", "CAP-DRV-13"],
    async run(ctx) {
      const windowMs = ctx.ms(4000);
      let start: number | undefined;
      let n = 0;
      const script: ProxyScript = {
        before(req) {
          if (req.kind !== "poll") return undefined;
          start ??= req.at;
          if (req.at >= start + windowMs) return undefined;
          n++;
          return n % 2 === 1
            ? {
                kind: "status",
                status: 503,
                code: "unavailable",
                message: "conformance outage",
                retryAfter: RETRY_AFTER,
              }
            : {
                kind: "status",
                status: 429,
                code: "x_conformance_throttled",
                message: "slow down",
                retryAfter: RETRY_AFTER,
              };
        },
      };
      await ctx.begin({ script });
      // The event waits out the outage; a driver that gave up never handles it.
      const messageId = await ctx.world.say(ctx.pod().id, `after the outage ${ctx.nonce()}`);
      await expectResumed(ctx, messageId, windowMs + ctx.ms(20_000), "after the outage window ended");
      const from = start ?? Date.now();
      const inWindow = pollsBetween(ctx, from, from + windowMs);
      const bound = Math.floor(windowMs / 1000) + 1;
      ctx.expect("CAP-DRV-11", inWindow.length <= bound, {
        message: `the driver polled ${inWindow.length} times in a ${windowMs} ms window of 503/429 answers`,
        expected: `at most ${bound} polls (one a second)`,
        actual: `${inWindow.length} polls`,
        wire: inWindow,
      });
      const polls = ctx.wire("poll");
      const tolerance = ctx.ms(100);
      for (const [i, x] of polls.entries()) {
        const retryAfter = Number(x.responseHeaders["retry-after"] ?? Number.NaN);
        const next = polls[i + 1];
        if (!next || !(x.status === 503 || x.status === 429) || !Number.isFinite(retryAfter)) continue;
        const gap = next.at - x.endAt;
        if (
          !ctx.expect("CAP-DRV-12", gap >= retryAfter * 1000 - tolerance, {
            message: `the driver polled again ${gap} ms after a ${x.status} with Retry-After: ${retryAfter}`,
            expected: `the next poll at least ${retryAfter * 1000} ms later`,
            actual: `${gap} ms later`,
            wire: [x, next] as WireExchange[],
          })
        )
          break;
      }
    },
  }),
  defineDriverCheck({
    id: "driver.backoff.long-poll-reset",
    family: "backoff",
    title: "a long-poll whose connection is reset mid-wait: the driver reconnects and handles the next event",
    verifies: ["CAP-DRV-13"],
    async run(ctx) {
      let broken = false;
      const script: ProxyScript = {
        before(req) {
          if (req.kind !== "poll" || broken) return undefined;
          broken = true;
          return { kind: "reset-after", ms: 300 };
        },
      };
      await ctx.begin({ script });
      const reset = await ctx.waitFor(() => ctx.wire("poll").some((x) => x.fault), ctx.ms(2000));
      if (!reset) ctx.incomplete("the first poll was not broken");
      const messageId = await ctx.world.say(ctx.pod().id, `after the reset ${ctx.nonce()}`);
      await expectResumed(ctx, messageId, ctx.ms(20_000), "after its long-poll's connection was reset");
    },
  }),
];
