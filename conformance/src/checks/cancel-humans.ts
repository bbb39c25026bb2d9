/**
 * Who cancels and what is kept (`cancel`): a human member of the pod (or an operator) may cancel an agent's
 * event through the kernel's human surface, another agent may not; each cancel keeps its reason, time and
 * canceller, shown to operators; double texting — under `interrupt` a human's message cancels the
 * deliveries the agent holds from that pod (`superseded`, named by the new event's `supersedes`), under
 * `enqueue` and for agents' messages nothing is cancelled. The human's routes are the fixture's.
 */
import type { WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, collect, humanPost, trigger } from "../queue.js";
import { arrival, now } from "../timing.js";
import {
  expectCancelAnswer,
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
import { fixtureHuman, humanCancel, queueView, setDoubleTexting } from "./human-surface.js";
import { leaseMs } from "./leases.js";
import { isUtcTimestamp } from "./support.js";

/** b's event carrying `nonce`, polled and acked (anything else b gets meanwhile is acked as skipped). */
async function newEvent(ctx: CheckContext, nonce: string): Promise<WireEvent | undefined> {
  const [e] = await collect(ctx, "b", {
    match: (x) => carries(x, nonce),
    count: 1,
    deadline: now() + arrival(ctx.timing),
  });
  if (e) await ctx.as("b").ack(e.id);
  return e;
}

export const cancelHumanChecks = [
  defineCheck({
    id: "cancel.who-may-cancel",
    family: "cancel",
    title:
      "lets a human of the event's pod cancel it through the kernel's human surface, answers another agent 404 and leaves the delivery held",
    verifies: ["CAP-CANCEL-12"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      fixtureHuman(ctx, "cancel as");
      const d = await held(ctx);
      const { id } = d.event;
      const stop = keepHeld(ctx, d);
      for (const role of ["a", "c"] as const)
        ctx.expectError(
          "CAP-CANCEL-12",
          await ctx.as(role).cancel(id),
          404,
          "event_not_found",
          `agent ${role} cancelling agent b's event`,
        );
      ctx.expectError(
        "CAP-CANCEL-12",
        await humanCancel(ctx, ctx.cast.other, id),
        404,
        "event_not_found",
        "the human cancelling the event through a pod it is not in",
      );
      const still = await peek(ctx, d);
      await stop();
      ctx.expect("CAP-CANCEL-12", isNotRequested(still), {
        message: "after refused cancels by other agents the delivery is no longer held as it was",
        expected: notRequestedShape,
        actual: shows(still),
        exchange: still,
      });
      const reason = `conformance ${ctx.nonce()}`;
      const res = await humanCancel(ctx, ctx.cast.shared, id, { reason });
      expectCancelAnswer(
        ctx,
        "CAP-CANCEL-12",
        res,
        { status: "cancelled", changed: true },
        "a human of the pod cancelling an agent's held delivery",
      );
      const told = await peek(ctx, d);
      ctx.expect("CAP-CANCEL-12", isRequested(told, reason), {
        message: "the agent's watch after a human cancelled its delivery",
        expected: requestedShape(reason),
        actual: shows(told),
        exchange: told,
      });
      await settle(ctx, id);
    },
  }),
  defineCheck({
    id: "cancel.reason-time-canceller",
    family: "cancel",
    title:
      "keeps each cancel's reason (requested when none was given), time and canceller, and shows them in the operator's queue view",
    verifies: ["CAP-CANCEL-13"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const reason = `conformance ${ctx.nonce()}`;
      const cases: { d: Awaited<ReturnType<typeof held>>; reason: string; by: string[] }[] = [];
      const plain = await held(ctx);
      await ctx.as("b").cancel(plain.event.id);
      cases.push({ d: plain, reason: "requested", by: ["agent"] });
      const given = await held(ctx);
      await ctx.as("b").cancel(given.event.id, { reason });
      cases.push({ d: given, reason, by: ["agent"] });
      if (ctx.run.settings.fixture.human) {
        const byHuman = await held(ctx);
        await humanCancel(ctx, ctx.cast.shared, byHuman.event.id, { reason });
        // The fixture's human may be both a member and an operator; either is a true canceller.
        cases.push({ d: byHuman, reason, by: ["human", "operator"] });
      }
      for (const c of cases) {
        const res = await peek(ctx, c.d);
        ctx.expect("CAP-CANCEL-13", isRequested(res, c.reason), {
          message: `the watch of a delivery cancelled by ${c.by.join(" or ")} ${c.reason === "requested" ? "without a reason" : "with a reason"}`,
          expected: requestedShape(c.reason),
          actual: shows(res),
          exchange: res,
        });
      }
      const view = await queueView(ctx);
      if (!view)
        ctx.note(
          "the operator's queue view was not checked: no fixture human, or its queue route answered otherwise",
        );
      for (const c of view ? cases : []) {
        const e = view?.events.get(c.d.event.id);
        const ok =
          e?.state === "cancelled" &&
          e.cancelReason === c.reason &&
          isUtcTimestamp(e.cancelledAt) &&
          c.by.includes(e.cancelledBy?.kind as string) &&
          typeof e.cancelledBy?.id === "string";
        ctx.expect("CAP-CANCEL-13", ok, {
          message: `the operator's queue view of an event cancelled by ${c.by.join(" or ")}`,
          expected: {
            state: "cancelled",
            cancelReason: c.reason,
            cancelledAt: "<UTC date-time>",
            cancelledBy: { kind: c.by.join(" | "), id: "<string>" },
          },
          actual: e
            ? {
                state: e.state,
                cancelReason: e.cancelReason,
                cancelledAt: e.cancelledAt,
                cancelledBy: e.cancelledBy,
              }
            : "not listed",
          ...(view ? { exchange: view.answer } : {}),
        });
      }
      await settle(ctx, ...cases.map((c) => c.d.event.id));
    },
  }),
  defineCheck({
    id: "cancel.double-texting-interrupt",
    family: "cancel",
    title:
      "under the interrupt policy, cancels the delivery an agent holds when a human posts in its pod (superseded), and the new event names it in supersedes",
    verifies: ["CAP-CANCEL-14"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      await setDoubleTexting(ctx, "b", "interrupt");
      try {
        const d = await held(ctx);
        const stop = keepHeld(ctx, d);
        const nonce = ctx.nonce();
        await humanPost(ctx, ctx.cast.shared, { content: `conformance double texting ${nonce}` });
        await stop();
        const told = await peek(ctx, d);
        ctx.expect("CAP-CANCEL-14", isRequested(told, "superseded"), {
          message: "the delivery b held when a human posted in its pod, under the interrupt policy",
          expected: requestedShape("superseded"),
          actual: shows(told),
          exchange: told,
        });
        const next = await newEvent(ctx, nonce);
        if (!next)
          ctx.incomplete(
            "the human's message made no event for agent b (see messages.human-post-wakes-agents)",
          );
        ctx.expect("CAP-CANCEL-14", Array.isArray(next.supersedes) && next.supersedes.includes(d.event.id), {
          message: "the event of the human's message does not name the delivery it interrupted",
          expected: { supersedes: [d.event.id] },
          actual: { id: next.id, supersedes: next.supersedes },
        });
        await settle(ctx, d.event.id);
      } finally {
        await setDoubleTexting(ctx, "b", "enqueue");
      }
    },
  }),
  defineCheck({
    id: "cancel.double-texting-enqueue",
    family: "cancel",
    title:
      "under the enqueue policy a human's message cancels nothing, and under either policy an agent's message never does",
    verifies: ["CAP-CANCEL-15"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      // The default; set explicitly so an earlier run's leftover policy cannot decide the verdict.
      await setDoubleTexting(ctx, "b", "enqueue");
      const cases: [string, "enqueue" | "interrupt", (nonce: string) => Promise<unknown>][] = [
        [
          "a human's message under the enqueue policy",
          "enqueue",
          (nonce) => humanPost(ctx, ctx.cast.shared, { content: `conformance enqueue ${nonce}` }),
        ],
        ["an agent's message under the interrupt policy", "interrupt", (nonce) => trigger(ctx, "b", nonce)],
      ];
      try {
        for (const [what, policy, post] of cases) {
          if (policy === "interrupt") await setDoubleTexting(ctx, "b", "interrupt");
          const d = await held(ctx);
          const stop = keepHeld(ctx, d);
          const nonce = ctx.nonce();
          await post(nonce);
          const still = await peek(ctx, d);
          await stop();
          // Without renew the one-lease delivery may have ended by now: then the watch cannot tell.
          if (!ctx.has("renew") && still.status === 409 && now() >= d.sentAt + leaseMs(ctx))
            ctx.note(`the delivery's lease ended before its watch after ${what}: not judged`);
          else
            ctx.expect("CAP-CANCEL-15", isNotRequested(still), {
              message: `the delivery b held, after ${what}`,
              expected: notRequestedShape,
              actual: shows(still),
              exchange: still,
            });
          const next = await newEvent(ctx, nonce);
          ctx.expect("CAP-CANCEL-15", next?.supersedes === undefined, {
            message: `the event of ${what} names deliveries it superseded`,
            expected: "no supersedes",
            actual: next ? { id: next.id, supersedes: next.supersedes } : "no event",
          });
          await settle(ctx, d.event.id);
        }
      } finally {
        await setDoubleTexting(ctx, "b", "enqueue");
      }
    },
  }),
];
