/**
 * The cancellation watch (`cancel`), `GET /events/{id}/cancellation?attempts&waitSeconds`: the cancelled
 * delivery is answered at once; a held one is held until it is cancelled (then answered within a second,
 * on whichever replica took the cancel) or the wait ends; any other delivery is `409 lease_lost`, a
 * foreign or unknown event `404`, bad parameters `400`.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { now, pause, tolerance } from "../timing.js";
import {
  cancelStep,
  held,
  isNotRequested,
  isRequested,
  keepHeld,
  notRequestedShape,
  peek,
  requestedShape,
  settle,
  shows,
} from "./cancel-support.js";
import { type Delivery, firstDelivery, leaseMs, nextDelivery } from "./leases.js";

const onceMs = (ctx: CheckContext) => Math.round(1000 * ctx.timing.timeScale);

/** Watch `d` for `waitSeconds` (on replica `urlIndex`), cancelling it as b `afterMs` into the wait. */
async function cancelDuringWatch(
  ctx: CheckContext,
  d: Delivery,
  o: { wait: number; afterMs: number; reason: string },
) {
  const urls = ctx.run.settings.urls.length;
  const t0 = now();
  const watch = ctx
    .as("b")
    .cancellation(d.event.id, { attempts: d.event.attempts, waitSeconds: o.wait }, { urlIndex: 0 });
  const answered = watch.then((res) => ({ res, at: now() }));
  // A head start so the watch is already held; if the cancel wins the race it must answer at once anyway.
  await pause(o.afterMs);
  const cancel = await ctx.as("b").cancel(d.event.id, { reason: o.reason }, { urlIndex: urls > 1 ? 1 : 0 });
  const cancelledAt = now();
  ctx.setupStatus("CAP-CANCEL-1", cancel, 200, `cancelling event ${d.event.id} during a watch`);
  const { res, at } = await answered;
  return { res, at, t0, cancelledAt };
}

export const cancelWatchChecks = [
  defineCheck({
    id: "cancel.watch-cancelled-at-once",
    family: "cancel",
    title:
      "answers a watch of the cancelled delivery at once: 200 {cancelRequested: true, reason, requestedAt}",
    verifies: ["CAP-CANCEL-8"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const d = await held(ctx);
      const reason = `conformance ${ctx.nonce()}`;
      await cancelStep(ctx, d.event.id, { reason });
      const t0 = now();
      const res = await ctx.as("b").cancellation(d.event.id, { attempts: d.event.attempts, waitSeconds: 10 });
      const took = now() - t0;
      ctx.expect("CAP-CANCEL-8", isRequested(res, reason), {
        message: "a watch of the delivery that was cancelled",
        expected: requestedShape(reason),
        actual: shows(res),
        exchange: res,
      });
      ctx.expect("CAP-CANCEL-8", took <= onceMs(ctx), {
        message: `a watch (waitSeconds=10) of a cancelled delivery took ${Math.round(took)} ms`,
        expected: `an answer within ${onceMs(ctx)} ms`,
        actual: `${Math.round(took)} ms`,
        exchange: res,
      });
      await settle(ctx, d.event.id);
    },
  }),
  defineCheck({
    id: "cancel.watch-held",
    family: "cancel",
    title:
      "holds a watch of a held delivery until the wait ends or a third of the lease is left, then renews it (cancelRequested false, leaseExpiresAt), or until a cancel comes (cancelRequested true)",
    verifies: ["CAP-CANCEL-9"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const W = 2;
      const d = await held(ctx);
      // A watch with nothing happening ends at its wait or once a third of the lease is left, whichever is
      // first, and renews the lease then: a watch at waitSeconds 0 renews at once, so the lease is whole.
      const before = await peek(ctx, d);
      const started = now();
      const quiet = await ctx
        .as("b")
        .cancellation(d.event.id, { attempts: d.event.attempts, waitSeconds: W });
      const took = now() - started;
      const holdMs = Math.min(W * 1000, (2 * leaseMs(ctx)) / 3);
      const renewed =
        isNotRequested(before) &&
        isNotRequested(quiet) &&
        Date.parse((quiet.body as { leaseExpiresAt: string }).leaseExpiresAt) >
          Date.parse((before.body as { leaseExpiresAt: string }).leaseExpiresAt);
      ctx.expect("CAP-CANCEL-9", renewed && took >= holdMs - 150 && took < W * 1000 + 1000, {
        message: `a watch (waitSeconds=${W}, lease ${leaseMs(ctx)} ms) of a held delivery nobody cancelled answered after ${Math.round(took)} ms`,
        expected: `${notRequestedShape} after about ${Math.round(holdMs)} ms (the wait, or a third of the lease left), its leaseExpiresAt later than ${shows(before)}'s: the watch renewed the lease`,
        actual: `${shows(quiet)} after ${Math.round(took)} ms`,
        exchange: quiet,
      });
      const e = await held(ctx);
      const stop = keepHeld(ctx, e);
      const reason = `conformance ${ctx.nonce()}`;
      const wait = 10;
      const { res, at, t0 } = await cancelDuringWatch(ctx, e, { wait, afterMs: 150, reason });
      await stop();
      ctx.expect("CAP-CANCEL-9", isRequested(res, reason) && at - t0 < wait * 1000 - 250, {
        message: `a watch held while its delivery was cancelled answered after ${Math.round(at - t0)} ms`,
        expected: `${requestedShape(reason)}, before the ${wait} s wait ended`,
        actual: `${shows(res)} after ${Math.round(at - t0)} ms`,
        exchange: res,
      });
      await settle(ctx, d.event.id, e.event.id);
    },
  }),
  defineCheck({
    id: "cancel.watch-wakes-within-a-second",
    family: "cancel",
    title: "answers a held watch within a second of the cancel, on whichever replica took the cancel",
    verifies: ["CAP-CANCEL-10"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const latencies: number[] = [];
      for (let i = 0; i < 3; i++) {
        const d = await held(ctx);
        const stop = keepHeld(ctx, d);
        const { res, at, cancelledAt } = await cancelDuringWatch(ctx, d, {
          wait: 10,
          afterMs: 200,
          reason: "conformance",
        });
        await stop();
        await settle(ctx, d.event.id);
        if (!isRequested(res))
          ctx.incomplete(`the watch did not answer the cancel (${shows(res)}; see cancel.watch-held)`);
        latencies.push(Math.max(0, at - cancelledAt));
      }
      const worst = Math.max(...latencies);
      ctx.expect("CAP-CANCEL-10", worst <= onceMs(ctx), {
        message: `a held watch answered ${Math.round(worst)} ms after the cancel`,
        expected: `within ${onceMs(ctx)} ms${ctx.run.settings.urls.length > 1 ? ", the cancel taken by the other replica" : ""}`,
        actual: latencies.map((l) => `${Math.round(l)} ms`).join(", "),
      });
    },
  }),
  defineCheck({
    id: "cancel.watch-refusals",
    family: "cancel",
    title:
      "answers a watch of another delivery (unknown, acked, released, re-claimed) 409, of a foreign or unknown event 404, with bad attempts or waitSeconds 400",
    verifies: ["CAP-CANCEL-11"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const { nonce, first: d } = await firstDelivery(ctx);
      const { id, attempts } = d.event;
      const lost = async (what: string, eventId: string, n: number) =>
        ctx.expectError(
          "CAP-CANCEL-11",
          await b.cancellation(eventId, { attempts: n }),
          409,
          "lease_lost",
          what,
        );
      await lost("a watch naming a delivery that does not exist (attempts + 1)", id, attempts + 1);
      for (const role of ["a", "c"] as const)
        ctx.expectError(
          "CAP-CANCEL-11",
          await ctx.as(role).cancellation(id, { attempts }),
          404,
          "event_not_found",
          `agent ${role} watching agent b's event`,
        );
      ctx.expectError(
        "CAP-CANCEL-11",
        await b.cancellation(`evt_${ctx.nonce()}`, { attempts: 1 }),
        404,
        "event_not_found",
        "a watch of an event that does not exist",
      );
      const bad: [string, Record<string, string | number>][] = [
        ["no attempts", {}],
        ["attempts 0", { attempts: 0 }],
        ["attempts 1.5", { attempts: 1.5 }],
        ["attempts that is not a number", { attempts: "one" }],
        ["waitSeconds -1", { attempts, waitSeconds: -1 }],
        ["waitSeconds 26", { attempts, waitSeconds: 26 }],
        ["waitSeconds 1.5", { attempts, waitSeconds: 1.5 }],
      ];
      for (const [what, query] of bad)
        ctx.expectError(
          "CAP-CANCEL-11",
          await b.cancellation(id, query),
          400,
          "validation_failed",
          `a watch with ${what}`,
        );
      // The lease ends and a poll claims the event again: the old delivery's watch is refused.
      const again = await nextDelivery(ctx, nonce, d.answeredAt + leaseMs(ctx) + tolerance(ctx.timing));
      if (again) await lost("a watch naming a delivery whose event was claimed again", id, attempts);
      else ctx.note("the re-claimed delivery was not checked: the event did not come back after its lease");
      await b.ack(id);
      await lost("a watch of an acked event's delivery", id, again?.event.attempts ?? attempts);
      if (ctx.has("release")) {
        const r = await held(ctx);
        const res = await b.release(r.event.id, { attempts: r.event.attempts, delaySeconds: 600 });
        ctx.setupStatus("CAP-REL-1", res, 200, "releasing a delivery");
        await lost("a watch of a released delivery", r.event.id, r.event.attempts);
        await b.ack(r.event.id);
      }
    },
  }),
];
