/**
 * Cancellation by the agent itself (`cancel`): the answer and its validation, a terminal `cancelled` state
 * reached at once from pending or held, idempotent on settled events, fenced against every later use of
 * the delivery — no poll returns it (fresh or replayed), no lease end fails it, renew and release are
 * `409 lease_lost` with `details.cancelled` (cancel-verbs.ts) — and an ack of it is still a successful ack.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval, tolerance, until } from "../timing.js";
import {
  cancelStep,
  expectCancelAnswer,
  failedEvent,
  held,
  isNotRequested,
  keepHeld,
  lastDelivery,
  notRequestedShape,
  peek,
  pendingEvent,
  settle,
  shows,
} from "./cancel-support.js";
import { queueView } from "./human-surface.js";
import { firstDelivery, leaseMs, nextDelivery } from "./leases.js";

export const cancelChecks = [
  defineCheck({
    id: "cancel.own-event",
    family: "cancel",
    title:
      "answers the agent's cancel of its own event 200 {ok, status, changed}, another identity's or an unknown event 404, a bad reason 400 changing nothing",
    verifies: ["CAP-CANCEL-1"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const d = await held(ctx);
      const { id } = d.event;
      const b = ctx.as("b");
      const stop = keepHeld(ctx, d);
      for (const role of ["a", "c"] as const)
        ctx.expectError(
          "CAP-CANCEL-1",
          await ctx.as(role).cancel(id),
          404,
          "event_not_found",
          `agent ${role} cancelling agent b's event`,
        );
      ctx.expectError(
        "CAP-CANCEL-1",
        await b.cancel(`evt_${ctx.nonce()}`),
        404,
        "event_not_found",
        "cancelling an event that does not exist",
      );
      const bad: [string, unknown][] = [
        ["a reason of 501 characters", { reason: "r".repeat(501) }],
        ["a reason that is a number", { reason: 5 }],
        ["a reason that is a list", { reason: ["stop"] }],
      ];
      for (const [what, body] of bad)
        ctx.expectError(
          "CAP-CANCEL-1",
          await b.cancel(id, body),
          400,
          "validation_failed",
          `a cancel with ${what}`,
        );
      const still = await peek(ctx, d);
      await stop();
      ctx.expect("CAP-CANCEL-1", isNotRequested(still), {
        message: "after refused cancels (404 and 400 answers) the delivery is no longer held as it was",
        expected: notRequestedShape,
        actual: shows(still),
        exchange: still,
      });
      expectCancelAnswer(
        ctx,
        "CAP-CANCEL-1",
        await b.cancel(id),
        { status: "cancelled" },
        "a cancel without a body",
      );
      const other = await held(ctx);
      expectCancelAnswer(
        ctx,
        "CAP-CANCEL-1",
        await b.cancel(other.event.id, { reason: "r".repeat(500) }),
        { status: "cancelled" },
        "a cancel with a reason of 500 characters",
      );
      await settle(ctx, id, other.event.id);
    },
  }),
  defineCheck({
    id: "cancel.terminal-at-once",
    family: "cancel",
    title: "makes a held delivery and a pending event cancelled at once: status cancelled, changed true",
    verifies: ["CAP-CANCEL-2"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      // One at a time: the polls that make the pending event must not find the held one lapsed.
      for (const [what, make] of [
        ["a held delivery", held],
        [ctx.has("release") ? "a released (pending) event" : "an event whose lease ended", pendingEvent],
      ] as const) {
        const e = await make(ctx);
        expectCancelAnswer(
          ctx,
          "CAP-CANCEL-2",
          await b.cancel(e.event.id),
          { status: "cancelled", changed: true },
          `cancelling ${what}`,
        );
        expectCancelAnswer(
          ctx,
          "CAP-CANCEL-2",
          await b.cancel(e.event.id),
          { status: "cancelled" },
          `the state of ${what} right after its cancel`,
        );
        await settle(ctx, e.event.id);
      }
    },
  }),
  defineCheck({
    id: "cancel.idempotent",
    family: "cancel",
    title: "answers a cancel of an acked, failed or cancelled event 200 with its state and changed false",
    verifies: ["CAP-CANCEL-3"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const acked = await held(ctx);
      await b.ack(acked.event.id);
      for (const n of [1, 2])
        expectCancelAnswer(
          ctx,
          "CAP-CANCEL-3",
          await b.cancel(acked.event.id),
          { status: "acked", changed: false },
          `cancel ${n} of an acked event`,
        );
      const cancelled = await held(ctx);
      await cancelStep(ctx, cancelled.event.id);
      for (const body of [undefined, { reason: "again" }])
        expectCancelAnswer(
          ctx,
          "CAP-CANCEL-3",
          await b.cancel(cancelled.event.id, body),
          { status: "cancelled", changed: false },
          `cancelling a cancelled event again${body ? " with another reason" : ""}`,
        );
      const failed = await failedEvent(ctx);
      expectCancelAnswer(
        ctx,
        "CAP-CANCEL-3",
        await b.cancel(failed),
        { status: "failed", changed: false },
        "cancelling a failed event",
      );
      await settle(ctx, cancelled.event.id);
    },
  }),
  defineCheck({
    id: "cancel.never-redelivered",
    family: "cancel",
    title:
      "never returns a cancelled event to a poll: held or pending when cancelled, fresh or replayed poll",
    verifies: ["CAP-CANCEL-4"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      if (ctx.has("poll-replay")) {
        const nonce = ctx.nonce();
        await trigger(ctx, "b", nonce);
        const pollId = ctx
          .nonce()
          .replace(/[^A-Za-z0-9_-]/g, "")
          .slice(-64);
        const deadline = now() + arrival(ctx.timing);
        let id: string | undefined;
        while (!id) {
          const events = eventsOf(ctx, await b.poll({ limit: 50, pollId }));
          id = events.find((e) => carries(e, nonce))?.id;
          for (const e of events) if (e.id !== id) await b.ack(e.id);
          if (!id && now() > deadline) ctx.incomplete("the triggered event never arrived");
          if (!id) await pause(pollInterval(ctx.timing));
        }
        await cancelStep(ctx, id);
        const replay = await b.poll({ limit: 50, pollId });
        const again = eventsOf(ctx, replay);
        ctx.expect("CAP-CANCEL-4", !again.some((e) => e.id === id), {
          message: "a poll replaying the pollId of a cancelled delivery returned it",
          expected: `a fresh poll, without ${id}`,
          actual: again.map((e) => ({ id: e.id, attempts: e.attempts })),
          exchange: replay,
        });
        for (const e of again) if (e.id !== id) await b.ack(e.id);
        await settle(ctx, id);
      }
      const L = leaseMs(ctx);
      const { nonce: heldNonce, first: d } = await firstDelivery(ctx);
      await cancelStep(ctx, d.event.id);
      const { nonce: lapsedNonce, first: lapsed } = await firstDelivery(ctx);
      await until(lapsed.sentAt + L + 50);
      await cancelStep(ctx, lapsed.event.id);
      const back = await nextDelivery(ctx, [heldNonce, lapsedNonce], now() + L + tolerance(ctx.timing));
      ctx.expect("CAP-CANCEL-4", back === undefined, {
        message: `a poll returned ${back?.event.id === d.event.id ? "a delivery cancelled while held" : "an event cancelled after its lease ended"}`,
        expected: "no poll returns a cancelled event",
        actual: back?.event,
        ...(back ? { exchange: back.answer } : {}),
      });
      await settle(ctx, d.event.id, lapsed.event.id);
    },
  }),
  defineCheck({
    id: "cancel.not-a-failure",
    family: "cancel",
    title: "keeps a cancelled event cancelled after its lease ends, even on the last attempt: never failed",
    verifies: ["CAP-CANCEL-5"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const d = await held(ctx);
      await cancelStep(ctx, d.event.id);
      const last = await lastDelivery(ctx);
      await cancelStep(ctx, last.event.id);
      await until(Math.max(d.answeredAt, last.answeredAt) + leaseMs(ctx) + tolerance(ctx.timing));
      // A poll gives a kernel that fails exhausted events lazily the moment to do it.
      for (const e of eventsOf(ctx, await b.poll({ limit: 50 }))) await b.ack(e.id);
      for (const [what, e] of [
        ["a delivery cancelled at attempt 1", d],
        [`a delivery cancelled at its last attempt (${last.event.attempts})`, last],
      ] as const)
        expectCancelAnswer(
          ctx,
          "CAP-CANCEL-5",
          await b.cancel(e.event.id),
          { status: "cancelled", changed: false },
          `the state of ${what}, after its lease ended`,
        );
      // Dead letters are failed events: the operator's view must list these as cancelled.
      const view = await queueView(ctx);
      if (!view)
        ctx.note(
          "the operator's queue view was not checked: no fixture human, or its queue route answered otherwise",
        );
      for (const e of view ? [d, last] : []) {
        const listed = view?.events.get(e.event.id);
        ctx.expect("CAP-CANCEL-5", listed?.state === "cancelled", {
          message: `the operator's queue view lists cancelled event ${e.event.id} in another state`,
          expected: { id: e.event.id, state: "cancelled" },
          actual: listed ? { id: listed.id, state: listed.state } : "not listed",
          ...(view ? { exchange: view.answer } : {}),
        });
      }
      await settle(ctx, d.event.id, last.event.id);
    },
  }),
];
