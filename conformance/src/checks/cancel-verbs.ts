/**
 * The queue verbs on a cancelled delivery (`cancel`): an ack — single or a batch item, with the outcome
 * `cancelled` — is a successful ack that leaves the event cancelled; an ack with `cancelled` of an event
 * nobody cancelled settles it like any outcome; a renew or release is `409 lease_lost` with
 * `details.cancelled: true`, so a driver that never watches still stops at its next renew.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { cancelStep, expectCancelAnswer, held, settle, shows } from "./cancel-support.js";
import { queueView } from "./human-surface.js";
import { isUtcTimestamp } from "./support.js";

const cancelledOutcome = { result: { outcome: "cancelled", reason: "conformance: stopped" } };

function expectFencedByCancel(ctx: CheckContext, res: Answer, what: string): void {
  const body = res.body as { code?: unknown; details?: { cancelled?: unknown } } | undefined;
  ctx.expect(
    "CAP-CANCEL-7",
    res.status === 409 && body?.code === "lease_lost" && body.details?.cancelled === true,
    {
      message: what,
      expected: 'HTTP 409 {"code": "lease_lost", "details": {"cancelled": true, "reason": …}}',
      actual: shows(res),
      exchange: res,
    },
  );
}

export const cancelVerbChecks = [
  defineCheck({
    id: "cancel.ack-of-cancelled",
    family: "cancel",
    title:
      "answers an ack of a cancelled event (single, repeated, or a batch item) as a successful ack and leaves it cancelled",
    verifies: ["CAP-CANCEL-6", "CAP-ACK-6"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const d = await held(ctx);
      await cancelStep(ctx, d.event.id, { reason: "conformance" });
      const ackedAt: unknown[] = [];
      for (const n of [1, 2]) {
        const res = await b.ack(d.event.id, cancelledOutcome);
        ctx.expect("CAP-CANCEL-6", res.status === 200 && (res.body as { ok?: unknown })?.ok === true, {
          message: `ack ${n} of a cancelled event, with outcome cancelled`,
          expected: 'HTTP 200 {"ok": true}',
          actual: shows(res),
          exchange: res,
        });
        ackedAt.push((await queueView(ctx))?.events.get(d.event.id)?.ackedAt);
      }
      // The operator's view shows when the ack was recorded: the first time, and never again.
      if (ackedAt[0] === undefined)
        ctx.note("the record of the ack was not checked: no operator's queue view");
      else
        ctx.expect("CAP-CANCEL-6", isUtcTimestamp(ackedAt[0]) && ackedAt[1] === ackedAt[0], {
          message: "the operator's queue view does not show the first ack of a cancelled event, kept once",
          expected: "ackedAt set by the first ack and unchanged by the second",
          actual: { afterFirst: ackedAt[0], afterSecond: ackedAt[1] },
        });
      expectCancelAnswer(
        ctx,
        "CAP-CANCEL-6",
        await b.cancel(d.event.id),
        { status: "cancelled", changed: false },
        "the state of a cancelled event after its ack",
      );
      if (ctx.has("batch-ack")) {
        const e = await held(ctx);
        await cancelStep(ctx, e.event.id);
        const res = await b.ackMany({ acks: [{ id: e.event.id, ...cancelledOutcome }] });
        const item = (res.body as { results?: { id?: unknown; ok?: unknown }[] } | undefined)?.results?.[0];
        ctx.expect("CAP-CANCEL-6", res.status === 200 && item?.id === e.event.id && item.ok === true, {
          message: "a batch ack naming a cancelled event",
          expected: `HTTP 200 {"results": [{"id": "${e.event.id}", "ok": true}]}`,
          actual: shows(res),
          exchange: res,
        });
        expectCancelAnswer(
          ctx,
          "CAP-CANCEL-6",
          await b.cancel(e.event.id),
          { status: "cancelled", changed: false },
          "the state of a cancelled event after a batch ack",
        );
      } else ctx.note("the batch ack of a cancelled event was not checked: no batch-ack");
      // The outcome is recorded, never acted on: an event nobody cancelled is simply acked.
      const plain = await held(ctx);
      const ack = await b.ack(plain.event.id, cancelledOutcome);
      ctx.expect("CAP-ACK-6", ack.status === 200, {
        message: 'an ack with outcome "cancelled" of an event nobody cancelled',
        expected: 'HTTP 200 {"ok": true}',
        actual: shows(ack),
        exchange: ack,
      });
      expectCancelAnswer(
        ctx,
        "CAP-ACK-6",
        await b.cancel(plain.event.id),
        { status: "acked", changed: false },
        'the state of an event acked with outcome "cancelled" that nobody cancelled',
      );
    },
  }),
  defineCheck({
    id: "cancel.renew-release-fenced",
    family: "cancel",
    title: "answers a renew or release of a cancelled delivery 409 lease_lost with details.cancelled: true",
    verifies: ["CAP-CANCEL-7"],
    feature: "cancel",
    queue: true,
    async run(ctx: CheckContext) {
      if (!ctx.has("renew") && !ctx.has("release"))
        ctx.skip("the kernel has neither renew nor release, so no verb is left to fence");
      const b = ctx.as("b");
      const d = await held(ctx);
      const { id, attempts } = d.event;
      await cancelStep(ctx, id, { reason: "conformance: fenced" });
      if (ctx.has("renew"))
        expectFencedByCancel(ctx, await b.renew(id, attempts), "renewing a cancelled delivery");
      if (ctx.has("release"))
        expectFencedByCancel(ctx, await b.release(id, { attempts }), "releasing a cancelled delivery");
      await settle(ctx, id);
    },
  }),
];
