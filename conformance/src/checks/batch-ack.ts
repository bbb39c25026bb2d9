/**
 * Batch ack (`batch-ack`): `POST /events/ack {acks}` settles each item as the single ack would and answers
 * one result per item in request order; unknown and foreign ids are refused per item; a malformed batch is
 * refused whole with 400 and settles none of its items.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, collect, trigger } from "../queue.js";
import { arrival, now, tolerance } from "../timing.js";
import { type Delivery, firstDelivery, leaseMs, nextDelivery } from "./leases.js";
import { sameJson } from "./support.js";

export const batchAckChecks = [
  defineCheck({
    id: "batch-ack.settles-each-item",
    family: "batch-ack",
    title: "settles each item like the single ack and answers {id, ok} per item, in request order",
    verifies: ["CAP-BATCH-1", "CAP-BATCH-2"],
    feature: "batch-ack",
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const one = await firstDelivery(ctx);
      const two = await firstDelivery(ctx);
      // An event of agent a, which b may not ack.
      const theirs = ctx.nonce();
      await trigger(ctx, "a", theirs);
      const [foreign] = await collect(ctx, "a", {
        match: (e) => carries(e, theirs),
        count: 1,
        deadline: now() + arrival(ctx.timing),
      });
      if (!foreign) ctx.incomplete("the event triggered for agent a never arrived");
      const unknown = `evt_${ctx.nonce()}`;
      const ids = [one.first.event.id, unknown, two.first.event.id, foreign.id, one.first.event.id];
      const res = await ctx.as("b").ackMany({
        acks: [
          { id: ids[0], result: { outcome: "posted", reason: `conformance ${ctx.canaryUrl("batch-ack")}` } },
          { id: ids[1] },
          { id: ids[2], result: { outcome: "skipped" } },
          { id: ids[3] },
          { id: ids[4], result: { outcome: "error" } },
        ],
      });
      const want = [
        { id: ids[0], ok: true },
        { id: ids[1], ok: false, code: "event_not_found" },
        { id: ids[2], ok: true },
        { id: ids[3], ok: false, code: "event_not_found" },
        { id: ids[4], ok: true },
      ];
      const got = (res.body as { results?: unknown } | undefined)?.results;
      ctx.expect("CAP-BATCH-1", res.status === 200 && Array.isArray(got) && got.length === want.length, {
        message: "a batch ack of five items did not answer 200 with five results",
        expected: "HTTP 200 {results: [5 items]}",
        actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 500)}`,
        exchange: res,
      });
      if (Array.isArray(got))
        ctx.expect(
          "CAP-BATCH-1",
          sameJson(
            got.map((r) => (r as { id?: unknown } | null)?.id),
            ids,
          ),
          {
            message: "the results are not one per item in request order",
            expected: ids,
            actual: got.map((r) => (r as { id?: unknown } | null)?.id),
            exchange: res,
          },
        );
      if (Array.isArray(got))
        for (const [i, w] of want.entries()) {
          const requirement = w.ok ? "CAP-BATCH-1" : "CAP-BATCH-2";
          ctx.expect(requirement, sameJson(got[i], w), {
            message: `result ${i + 1} (${w.ok ? "an event of the caller" : i === 1 ? "an unknown id" : "another agent's event"})`,
            expected: w,
            actual: got[i],
            exchange: res,
          });
        }
      // Settled items never come back; the foreign event was left alone and comes back to its agent.
      const deadline = Math.max(one.first.answeredAt, two.first.answeredAt) + L + tolerance(ctx.timing);
      const again: Delivery | undefined = await nextDelivery(ctx, [one.nonce, two.nonce], deadline);
      ctx.expect("CAP-BATCH-1", again === undefined, {
        message: "an event acked in a batch was delivered again",
        expected: "no delivery after its lease ended",
        actual: again?.event,
        ...(again ? { exchange: again.answer } : {}),
      });
      const [back] = await collect(ctx, "a", {
        match: (e) => carries(e, theirs),
        count: 1,
        deadline: now() + L + tolerance(ctx.timing),
      });
      ctx.expect("CAP-BATCH-2", back !== undefined, {
        message: "another agent's event named in a batch ack was settled (it never came back to its agent)",
        expected: `redelivery to agent a after its lease`,
        actual: "no redelivery",
      });
      if (back) await ctx.as("a").ack(back.id);
    },
  }),
  defineCheck({
    id: "batch-ack.malformed-settles-nothing",
    family: "batch-ack",
    title: "answers 400 validation_failed to a malformed batch and settles none of its items",
    verifies: ["CAP-BATCH-3"],
    feature: "batch-ack",
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const { nonce, first } = await firstDelivery(ctx);
      const id = first.event.id;
      const b = ctx.as("b");
      const bodies: [string, unknown][] = [
        ["no acks", {}],
        ["an empty acks array", { acks: [] }],
        ["101 items", { acks: Array.from({ length: 101 }, () => ({ id })) }],
        ["acks that is not an array", { acks: id }],
        ["a valid item and one with an empty id", { acks: [{ id }, { id: "" }] }],
        ["a valid item and one without an id", { acks: [{ id }, { result: { outcome: "posted" } }] }],
        [
          "a valid item and one with an unknown outcome",
          { acks: [{ id }, { id, result: { outcome: "nope" } }] },
        ],
      ];
      for (const [what, body] of bodies)
        ctx.expectError(
          "CAP-BATCH-3",
          await b.ackMany(body),
          400,
          "validation_failed",
          `a batch ack with ${what}`,
        );
      const again = await nextDelivery(ctx, nonce, first.answeredAt + L + tolerance(ctx.timing));
      ctx.expect("CAP-BATCH-3", again !== undefined, {
        message:
          "the event named in the malformed batches was settled (it did not come back after its lease)",
        expected: "redelivery after the lease",
        actual: "no redelivery",
      });
      if (again) await b.ack(again.event.id);
    },
  }),
];
