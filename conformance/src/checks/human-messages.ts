/**
 * What a human's message causes: `message.posted` for every agent of the pod (`mention.received` instead
 * for the agents it mentions), and — for a threaded reply to a decision's question — a wake-up of the
 * asking agent. Humans are outside CAP: these checks post through the fixture's `human`.
 */
import { demands, type WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, collect, humanPost } from "../queue.js";
import { arrival, now } from "../timing.js";

async function eventFor(ctx: CheckContext, role: "a" | "b", nonce: string): Promise<WireEvent | undefined> {
  const [e] = await collect(ctx, role, {
    match: (x) => carries(x, nonce),
    count: 1,
    deadline: now() + arrival(ctx.timing),
  });
  if (e) await ctx.as(role).ack(e.id);
  return e;
}

export const humanPostChecks = [
  defineCheck({
    id: "messages.human-post-wakes-agents",
    family: "messages",
    title:
      "enqueues message.posted for every agent of the pod when a human posts, mention.received for the mentioned",
    verifies: ["CAP-MSG-8"],
    queue: true,
    async run(ctx: CheckContext) {
      const plain = ctx.nonce();
      await humanPost(ctx, ctx.cast.shared, {
        content: `conformance human post ${plain} ${ctx.canaryUrl("human")}`,
      });
      for (const role of ["a", "b"] as const) {
        const e = await eventFor(ctx, role, plain);
        ctx.expect("CAP-MSG-8", e?.type === "message.posted", {
          message: `${ctx.cast[role].name} after a human's post in its pod`,
          expected: "a message.posted event",
          actual: e ?? "no event",
        });
      }
      const mention = ctx.nonce();
      await humanPost(ctx, ctx.cast.shared, {
        content: `@${ctx.cast.b.name} conformance human mention ${mention}`,
      });
      const atB = await eventFor(ctx, "b", mention);
      const atA = await eventFor(ctx, "a", mention);
      ctx.expect("CAP-MSG-8", atB?.type === "mention.received", {
        message: "the agent a human mentioned",
        expected: "mention.received (instead of message.posted)",
        actual: atB ?? "no event",
      });
      ctx.expect("CAP-MSG-8", atA?.type === "message.posted", {
        message: "the other agent of the pod after a human's mention of someone else",
        expected: "message.posted",
        actual: atA ?? "no event",
      });
    },
  }),
];

export const humanReplyChecks = [
  defineCheck({
    id: "decisions.human-reply-wakes-asker",
    family: "decisions",
    title: "wakes the asking agent with message.posted when a human replies to the decision's question",
    verifies: ["CAP-DEC-4"],
    feature: "decisions",
    queue: true,
    async run(ctx: CheckContext) {
      const res = await ctx.as("a").decide({
        podId: ctx.cast.shared,
        decisionClass: "strategy",
        title: `conformance ${ctx.nonce()}`,
        question: `Ship it? ${ctx.nonce()}`,
        options: ["yes", "no"],
      });
      ctx.setupAnswer(res, demands.decide, "asking a decision");
      const messageId = (res.body as { messageId: string }).messageId;
      const nonce = ctx.nonce();
      await humanPost(ctx, ctx.cast.shared, { content: `yes ${nonce}`, replyToMessageId: messageId });
      const e = await eventFor(ctx, "a", nonce);
      const reply = (e?.payload as { replyToMessageId?: unknown } | undefined)?.replyToMessageId;
      ctx.expect("CAP-DEC-4", e?.type === "message.posted" && reply === messageId, {
        message: "the asking agent after a human's threaded reply to its question",
        expected: { type: "message.posted", replyToMessageId: messageId },
        actual: e ? { type: e.type, replyToMessageId: reply } : "no event",
      });
      await eventFor(ctx, "b", nonce);
    },
  }),
];
