/**
 * Acks: 200 `{ok: true}` with or without a body, idempotent, accepted after the lease ended (even when a
 * later poll re-claimed the event), and final — an acked event never comes back, whatever its outcome.
 */
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, collect } from "../queue.js";
import { tolerance } from "../timing.js";
import { firstDelivery, leaseMs, nextDelivery } from "./leases.js";

const okBody = (a: Answer) => (a.body as { ok?: unknown } | undefined)?.ok === true;

function expectAckOk(ctx: CheckContext, requirement: string, res: Answer, what: string): void {
  ctx.expect(requirement, res.status === 200 && okBody(res), {
    message: what,
    expected: 'HTTP 200 {"ok": true}',
    actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
    exchange: res,
  });
}

export const ackChecks = [
  defineCheck({
    id: "ack.ok-with-any-body",
    family: "ack",
    title: "answers 200 {ok: true} to an ack without a body, with a result, and with unknown fields",
    verifies: ["CAP-ACK-1", "CAP-COMPAT-4"],
    queue: true,
    async run(ctx: CheckContext) {
      const url = ctx.canaryUrl("ack");
      const bodies: [string, unknown, string][] = [
        ["CAP-ACK-1", undefined, "an ack without a body"],
        [
          "CAP-ACK-1",
          {
            result: {
              outcome: "posted",
              messageId: "msg_conformance",
              reason: `see ${url}`,
              details: { url },
            },
          },
          "an ack with a full result",
        ],
        // Deployed drivers send `result.content` and other fields CAP does not define.
        [
          "CAP-COMPAT-4",
          { result: { outcome: "no_action", content: url }, driver: { url } },
          "an ack with unknown fields",
        ],
      ];
      for (const [requirement, body, what] of bodies) {
        const { first } = await firstDelivery(ctx);
        const res = await ctx.as("b").ack(first.event.id, body);
        // Unknown fields: a refusal breaks CAP-COMPAT-4; the answer to an accepted ack is CAP-ACK-1's.
        if (requirement === "CAP-COMPAT-4") ctx.expectAccepted(requirement, res, what, demands.ack);
        else expectAckOk(ctx, requirement, res, what);
      }
    },
  }),
  defineCheck({
    id: "ack.idempotent",
    family: "ack",
    title: "answers 200 {ok: true} again to an ack of an acked event",
    verifies: ["CAP-ACK-3"],
    queue: true,
    async run(ctx: CheckContext) {
      const { first } = await firstDelivery(ctx);
      const b = ctx.as("b");
      ctx.setupAnswer(
        await b.ack(first.event.id, { result: { outcome: "acknowledged" } }),
        demands.ack,
        "the first ack",
      );
      expectAckOk(
        ctx,
        "CAP-ACK-3",
        await b.ack(first.event.id, { result: { outcome: "error" } }),
        "second ack of the same event",
      );
      expectAckOk(ctx, "CAP-ACK-3", await b.ack(first.event.id), "third ack, without a body");
    },
  }),
  defineCheck({
    id: "ack.final",
    family: "ack",
    title: "never delivers an acked event again, including one acked with outcome error",
    verifies: ["CAP-ACK-4", "CAP-ACK-6"],
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const posted = await firstDelivery(ctx);
      const failed = await firstDelivery(ctx);
      const b = ctx.as("b");
      await b.ack(posted.first.event.id, { result: { outcome: "posted" } });
      await b.ack(failed.first.event.id, {
        result: { outcome: "error", reason: "conformance: handler failed" },
      });
      const deadline = Math.max(posted.first.answeredAt, failed.first.answeredAt) + L + tolerance(ctx.timing);
      const back = await collect(ctx, "b", {
        match: (e) => carries(e, posted.nonce) || carries(e, failed.nonce),
        count: Number.POSITIVE_INFINITY,
        deadline,
      });
      for (const e of back) {
        await b.ack(e.id);
        const errorOutcome = e.id === failed.first.event.id;
        ctx.expect(errorOutcome ? "CAP-ACK-6" : "CAP-ACK-4", false, {
          message: `an event acked with outcome ${errorOutcome ? "error" : "posted"} was delivered again`,
          expected: "never delivered again",
          actual: e,
        });
      }
    },
  }),
  defineCheck({
    id: "ack.after-lease-end",
    family: "ack",
    title:
      "accepts an ack after the lease ended and the event was claimed again, and then stops delivering it",
    verifies: ["CAP-ACK-2", "CAP-ACK-4"],
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const { nonce, first } = await firstDelivery(ctx);
      const again = await nextDelivery(ctx, nonce, first.answeredAt + L + tolerance(ctx.timing));
      if (!again) ctx.incomplete("the event was not redelivered (see leases.redelivered-after-expiry)");
      const res = await ctx.as("b").ack(first.event.id, { result: { outcome: "posted" } });
      // A refusal breaks CAP-ACK-2; an accepted ack answered otherwise than 200 {ok: true} is CAP-ACK-1's.
      ctx.expectAccepted(
        "CAP-ACK-2",
        res,
        "an ack after the lease ended and a later poll re-claimed the event",
        demands.ack,
      );
      const back = await nextDelivery(ctx, nonce, again.answeredAt + L + tolerance(ctx.timing));
      if (back) await ctx.as("b").ack(back.event.id);
      ctx.expect("CAP-ACK-4", back === undefined, {
        message: "the event was delivered again after a 200 ack",
        expected: "never delivered again",
        actual: back?.event,
        ...(back ? { exchange: back.answer } : {}),
      });
    },
  }),
];
