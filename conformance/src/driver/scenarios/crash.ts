/**
 * A crash mid-handler, the failure at-least-once delivery exists for. The suite kills the driver's process
 * group (SIGKILL: nothing to catch, nothing released) while it holds an event, starts it again, and judges
 * the pod: the event comes back and is handled exactly once. Twice over — killed while its reply is held in
 * flight (the reply never reaches the kernel, so the restarted driver must still answer: a driver that
 * acked before handling has lost the event), and killed while the ack of a posted reply is held (the
 * restarted driver, which remembers nothing, must not answer a second time).
 */
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { ProxyScript } from "../fault-proxy.js";
import type { EventState } from "../world.js";
import { ackResults, withNonce } from "./support.js";

/** Which request of the event to hold when it comes, so the driver can be killed while it waits. */
type Hold = { kind: "reply"; nonce: string } | { kind: "ack"; eventId: string };

/** Holds the first matching request until the driver hangs up (its process dies) or the scenario ends. */
function holding(ctx: DriverContext) {
  let target: Hold | undefined;
  let held = false;
  const script: ProxyScript = {
    before(req) {
      if (!target || held) return undefined;
      const match =
        target.kind === "reply"
          ? req.kind === "post" && req.body.includes(target.nonce)
          : ackResults({ kind: req.kind, eventId: req.eventId, requestJson: req.json }, target.eventId)
              .length > 0;
      if (!match) return undefined;
      held = true;
      return { kind: "reset-after", ms: ctx.handleMs };
    },
  };
  return {
    script,
    async hold(what: Hold): Promise<boolean> {
      target = what;
      held = false;
      return ctx.waitFor(() => held, ctx.handleMs);
    },
  };
}

const mention = (ctx: DriverContext, nonce: string, words: string) => `@${ctx.agent.name} ${words} ${nonce}`;

/** After the restart: wait for the event to be acked again, or for a deadline past its lease. */
async function settledAfterRestart(ctx: DriverContext, event: EventState): Promise<boolean> {
  return ctx.acked(event.id, ctx.handleMs + ctx.ms(2 * ctx.leaseMs));
}

export const crashChecks = [
  defineDriverCheck({
    id: "driver.handling.crash-mid-handler",
    family: "handling",
    title:
      "killed (SIGKILL) mid-handler and started again: the event comes back and is answered exactly once, whether its reply was still in flight or already posted",
    verifies: ["CAP-DRV-18", "CAP-DRV-1"],
    needsProcess: true,
    async run(ctx) {
      const h = holding(ctx);
      await ctx.begin({ script: h.script });

      // 1. Killed while its reply is in flight: nothing reached the pod, so the event must come back.
      const first = ctx.nonce();
      const { event: a } = await ctx.say(ctx.pod(), mention(ctx, first, "answer me, even if you crash"));
      if (!(await h.hold({ kind: "reply", nonce: first }))) {
        ctx.note(`the driver posted no reply to the @mention ${a.id}, so it was never killed mid-handler`);
        return;
      }
      const atCrash = await ctx.world.event(a.id);
      await ctx.crashAndRestart();
      const aHandled = await settledAfterRestart(ctx, a);
      const aReplies = withNonce(await ctx.world.agentMessages(ctx.agent), first);
      const wire = () => ctx.wire("poll", "post", "ack", "batch-ack", "renew", "release");
      if (atCrash?.state === "acked")
        ctx.expect("CAP-DRV-18", aReplies.length > 0, {
          message: `the driver acked ${a.id} before its reply had taken effect; killed mid-handler, it lost the event: the kernel never redelivered it and the pod has no reply`,
          expected: `${a.id} unacked until its reply was posted, so that it comes back after the crash`,
          actual: `acked before the crash (attempts ${atCrash.attempts}); ${aReplies.length} replies in the pod`,
          wire: wire(),
        });
      else
        ctx.expect("CAP-DRV-18", aHandled && aReplies.length > 0, {
          message: `killed while its reply to ${a.id} was in flight, the driver, started again, did not handle the redelivered event${ctx.processNote()}`,
          expected: `the event redelivered after its lease, answered and acked by the restarted driver`,
          actual: `event ${(await ctx.world.event(a.id))?.state ?? "unknown"}, ${aReplies.length} replies in the pod`,
          wire: wire(),
        });
      ctx.expect("CAP-DRV-1", aReplies.length <= 1, {
        message: `killed once mid-handler, the driver answered ${a.id} ${aReplies.length} times`,
        expected: "one reply in the pod",
        actual: aReplies.map((m) => `${m.id}: ${m.content.slice(0, 80)}`),
        wire: wire(),
      });

      // 2. Killed after its reply was posted, while the ack is in flight: the restarted driver, which
      // remembers nothing, gets the event again and must not answer it twice.
      const second = ctx.nonce();
      const { event: b } = await ctx.say(ctx.pod(), mention(ctx, second, "answer me once, crash or not"));
      if (!(await h.hold({ kind: "ack", eventId: b.id }))) {
        ctx.note(`the driver did not ack ${b.id} in time, so it was never killed with its ack in flight`);
        return;
      }
      await ctx.crashAndRestart();
      const bHandled = await settledAfterRestart(ctx, b);
      const bReplies = withNonce(await ctx.world.agentMessages(ctx.agent), second);
      ctx.expect("CAP-DRV-1", bReplies.length === 1, {
        message:
          bReplies.length === 0
            ? `the driver's reply to ${b.id} is gone from the pod`
            : `killed after answering ${b.id} and before its ack was through, the driver answered it again when it came back: ${bReplies.length} replies`,
        expected: "one reply: the redelivered event's post carries the first post's Idempotency-Key",
        actual: bReplies.map((m) => `${m.id}: ${m.content.slice(0, 80)}`),
        wire: wire(),
      });
      if (!bHandled) ctx.note(`${b.id} was not acked again after the restart${ctx.processNote()}`);
    },
  }),
];
