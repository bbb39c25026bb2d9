/**
 * Decisions: a valid request is stored and its question posted (201 {id, messageId, createdAt}); any field
 * CAP does not define, a wrong option count or class, and a thread root outside the pod are rejected.
 */
import { randomBytes } from "node:crypto";
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { isUtcTimestamp, postId } from "./support.js";

const valid = (ctx: CheckContext) => ({
  podId: ctx.cast.shared,
  decisionClass: "prioritization",
  title: `conformance ${ctx.nonce()}`,
  question: `Which first? ${ctx.nonce()} ${ctx.canaryUrl("question")}`,
  options: ["this", "that"],
  context: `See ${ctx.canaryUrl("context")}`,
});

export const decisionChecks = [
  defineCheck({
    id: "decisions.create",
    family: "decisions",
    title:
      "stores a valid decision, posts its question as the agent and answers 201 {id, messageId, createdAt}",
    verifies: ["CAP-DEC-1"],
    feature: "decisions",
    async run(ctx: CheckContext) {
      const res = await ctx.as("a").decide(valid(ctx));
      const body = res.body as { id?: unknown; messageId?: unknown; createdAt?: unknown } | undefined;
      ctx.assert(
        "CAP-DEC-1",
        res.status === 201 &&
          typeof body?.id === "string" &&
          typeof body.messageId === "string" &&
          isUtcTimestamp(body.createdAt),
        {
          message: "a valid decision request",
          expected: "HTTP 201 {id, messageId, createdAt}",
          actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
          exchange: res,
        },
      );
      if (!ctx.has("message-read"))
        return ctx.note("the posted question is not looked up: needs message-read");
      const read = await ctx.as("a").read(ctx.cast.shared, { limit: 100 });
      const list = (read.body as { messages?: { id: string; self?: unknown }[] } | undefined)?.messages ?? [];
      const question = list.find((m) => m.id === body.messageId);
      ctx.expect("CAP-DEC-1", question?.self === true, {
        message: "the decision's question is not in the pod as a message by the asking agent",
        expected: { id: body.messageId, self: true },
        actual: question ?? "not among the newest 100 messages",
        exchange: read,
      });
    },
  }),
  defineCheck({
    id: "decisions.rejects-invalid",
    family: "decisions",
    title: "answers an unknown field, a wrong option count or an unknown class with 400 validation_failed",
    verifies: ["CAP-DEC-2"],
    feature: "decisions",
    async run(ctx: CheckContext) {
      const cases: [string, Record<string, unknown>][] = [
        ["an unknown field", { ...valid(ctx), approve: true }],
        ["an agent name", { ...valid(ctx), agentName: ctx.cast.b.name }],
        ["one option", { ...valid(ctx), options: ["only"] }],
        ["five options", { ...valid(ctx), options: ["1", "2", "3", "4", "5"] }],
        ["an unknown decisionClass", { ...valid(ctx), decisionClass: "budget" }],
        ["no title", { ...valid(ctx), title: undefined }],
      ];
      for (const [what, body] of cases) {
        const res = await ctx.as("a").decide(body);
        ctx.expectError("CAP-DEC-2", res, 400, "validation_failed", `a decision with ${what}`);
      }
    },
  }),
  defineCheck({
    id: "decisions.thread-root-in-pod",
    family: "decisions",
    title: "answers a threadRootId outside the pod with 400 message_not_in_pod",
    verifies: ["CAP-DEC-3"],
    feature: "decisions",
    async run(ctx: CheckContext) {
      const foreign = await postId(
        ctx,
        "c",
        ctx.cast.other,
        { content: `conformance ${ctx.nonce()}` },
        "posting into the other pod",
      );
      for (const root of [foreign, `msg_${randomBytes(8).toString("hex")}`]) {
        const res = await ctx.as("a").decide({ ...valid(ctx), threadRootId: root });
        ctx.expectError("CAP-DEC-3", res, 400, "message_not_in_pod", `threadRootId ${root}`);
      }
      const root = await postId(
        ctx,
        "a",
        ctx.cast.shared,
        { content: `conformance root ${ctx.nonce()}` },
        "posting a thread root",
      );
      const ok = await ctx.as("a").decide({ ...valid(ctx), threadRootId: root });
      // A refusal breaks CAP-DEC-3; an accepted decision answered otherwise is CAP-DEC-1's.
      ctx.expectAccepted("CAP-DEC-3", ok, "a threadRootId in the same pod", demands.decide);
    },
  }),
];
