/**
 * The open world: an event type no driver knows, unknown fields on every event and on the poll answer,
 * and an unknown value in `/info` `features`. The unknown event is acked `skipped` (or, when the driver
 * chose to answer it, with the outcome of what it did), and the human message after it is still handled.
 */
import { defineDriverCheck } from "../check.js";
import type { ProxyScript } from "../fault-proxy.js";
import { expectValidOutcomes, settledOutcome } from "./support.js";

const UNKNOWN_TYPE = "x.conformance.unknown";

const script: ProxyScript = {
  after(req, answer) {
    if (answer.status !== 200 || typeof answer.json !== "object" || answer.json === null) return undefined;
    const body = answer.json as Record<string, unknown>;
    if (req.kind === "info" && Array.isArray(body.features))
      return { ...body, features: [...body.features, "x-conformance-feature"], xConformance: { extra: 1 } };
    if (req.kind === "poll" && Array.isArray(body.events))
      return {
        ...body,
        xConformance: "an unknown top-level field",
        events: body.events.map((e: Record<string, unknown>) => ({
          ...e,
          xConformanceField: { nested: [1, "two", null] },
        })),
      };
    return undefined;
  },
};

export const unknownChecks = [
  defineDriverCheck({
    id: "driver.unknown.type-and-fields",
    family: "unknown",
    title:
      "acks an event of an unknown type as skipped, ignores unknown fields and features, and still handles the next event",
    verifies: ["CAP-DRV-2", "CAP-DRV-3"],
    async run(ctx) {
      await ctx.begin({ script });
      const pod = ctx.pod();
      const nonce = ctx.nonce();
      const unknownId = await ctx.world.emit(ctx.agent, pod.id, UNKNOWN_TYPE, {
        note: `an event type from a later version of the kernel ${nonce}`,
        shape: { deeply: { nested: true } },
      });
      const followUp = ctx.nonce();
      const { messageId, event: next } = await ctx.say(pod, `after the unknown event ${followUp}`);

      const unknownAcked = await ctx.acked(unknownId, ctx.handleMs);
      ctx.expect("CAP-DRV-2", unknownAcked, {
        message: `the driver did not ack the ${UNKNOWN_TYPE} event ${unknownId} within ${ctx.handleMs} ms${ctx.processNote()}`,
        expected: `POST /events/${unknownId}/ack {"result": {"outcome": "skipped"}}`,
        actual: "no ack the kernel accepted",
      });
      expectValidOutcomes(ctx, "CAP-DRV-2", unknownId);
      if (unknownAcked) {
        const outcome = await settledOutcome(ctx, unknownId);
        const unknownEvent = await ctx.world.event(unknownId);
        // A post before the unknown event was settled that does not answer the follow-up answers it.
        const answered = ctx
          .wire("post")
          .some(
            (p) =>
              p.status < 300 &&
              p.at <= (unknownEvent?.ackedAt ?? 0) &&
              !(p.requestBody ?? "").includes(followUp) &&
              !(p.requestBody ?? "").includes(messageId),
          );
        if (answered)
          ctx.note(`the driver answered the ${UNKNOWN_TYPE} event with a post (outcome ${outcome})`);
        else
          ctx.expect("CAP-DRV-2", outcome === "skipped", {
            message: `the driver did nothing with the ${UNKNOWN_TYPE} event but did not ack it as skipped`,
            expected: 'result.outcome "skipped"',
            actual: outcome === undefined ? "an ack without result.outcome" : `result.outcome "${outcome}"`,
          });
      }
      const nextAcked = await ctx.acked(next.id, ctx.handleMs);
      ctx.expect("CAP-DRV-3", nextAcked, {
        message: `after an unknown event type, unknown fields and an unknown feature, the driver did not handle the next event ${next.id}${ctx.processNote()}`,
        expected: `an ack of ${next.id}`,
        actual: "no ack",
      });
    },
  }),
];
