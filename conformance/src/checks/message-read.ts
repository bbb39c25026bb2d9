/**
 * Reading a pod's recent messages: newest first, `limit` honoured, `before` paging, and the `self` /
 * `isBot` flags drivers rely on to avoid answering themselves. Ordering checks use the other pod, where
 * only agent c posts, so the queue lane's posts in the shared pod cannot interleave.
 */
import { randomBytes } from "node:crypto";
import type { Role } from "../agents.js";
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { postId, sameJson } from "./support.js";

interface ReadMessage {
  id: string;
  content: string;
  self?: unknown;
  isBot?: unknown;
  metadata?: unknown;
  author?: { name?: unknown };
}

/** The messages of a read, held to CAP-READ-1's 200 {messages} (the check's own when it verifies it). */
function messagesOf(ctx: CheckContext, res: Answer): ReadMessage[] {
  ctx.about(res);
  ctx.setupAnswer(res, demands.read, "reading messages");
  return (res.body as { messages: ReadMessage[] }).messages;
}

/** c posts three messages into the other pod; returns their ids, oldest first. */
async function threeInOtherPod(ctx: CheckContext): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= 3; i++)
    ids.push(
      await postId(
        ctx,
        "c",
        ctx.cast.other,
        { content: `conformance read #${i} ${ctx.nonce()}` },
        `posting message ${i} of 3 into the other pod`,
      ),
    );
  return ids;
}

export const messageReadChecks = [
  defineCheck({
    id: "message-read.newest-first",
    family: "message-read",
    title: "answers {messages} newest first with at most limit (1–100) messages",
    verifies: ["CAP-READ-1"],
    feature: "message-read",
    async run(ctx: CheckContext) {
      const [m1, m2, m3] = await threeInOtherPod(ctx);
      const c = ctx.as("c");
      for (const [limit, want] of [
        [2, [m3, m2]],
        [3, [m3, m2, m1]],
      ] as const) {
        const res = await c.read(ctx.cast.other, { limit });
        const got = messagesOf(ctx, res).map((m) => m.id);
        ctx.expect("CAP-READ-1", got.join() === want.join(), {
          message: `reading with limit=${limit} right after three posts`,
          expected: want,
          actual: got,
          exchange: res,
        });
      }
      for (const limit of [0, 101]) {
        const res = await c.read(ctx.cast.other, { limit });
        ctx.expectError("CAP-READ-1", res, 400, "validation_failed", `reading with limit=${limit}`);
      }
      const dflt = messagesOf(ctx, await c.read(ctx.cast.other));
      ctx.expect("CAP-READ-1", dflt.length <= 20, {
        message: "the default limit is 20",
        expected: "≤ 20",
        actual: dflt.length,
      });
    },
  }),
  defineCheck({
    id: "message-read.before",
    family: "message-read",
    title:
      "returns only messages older than `before`, and 400 message_not_in_pod when it names none of the pod's",
    verifies: ["CAP-READ-3"],
    feature: "message-read",
    async run(ctx: CheckContext) {
      const [m1, m2, m3] = await threeInOtherPod(ctx);
      const c = ctx.as("c");
      const res = await c.read(ctx.cast.other, { before: m3, limit: 2 });
      const got = messagesOf(ctx, res).map((m) => m.id);
      ctx.expect("CAP-READ-3", got.join() === [m2, m1].join(), {
        message: "reading before the newest of three messages",
        expected: [m2, m1],
        actual: got,
        exchange: res,
      });
      const foreign = await postId(
        ctx,
        "a",
        ctx.cast.shared,
        { content: `conformance ${ctx.nonce()}` },
        "posting into the shared pod",
      );
      for (const before of [`msg_${randomBytes(8).toString("hex")}`, foreign]) {
        const bad = await c.read(ctx.cast.other, { before });
        ctx.expectError(
          "CAP-READ-3",
          bad,
          400,
          "message_not_in_pod",
          `reading before ${before}, not a message of the pod`,
        );
      }
    },
  }),
  defineCheck({
    id: "message-read.self-and-is-bot",
    family: "message-read",
    title: "flags each message self exactly when the reader wrote it and isBot when an agent did",
    verifies: ["CAP-READ-2", "CAP-MSG-6"],
    feature: "message-read",
    async run(ctx: CheckContext) {
      const posted = new Map<Role, { id: string; metadata: unknown }>();
      for (const role of ["a", "b"] as const) {
        const metadata = { kind: "conformance", by: role, link: ctx.canaryUrl("read") };
        const content = `conformance self ${ctx.nonce()}`;
        const id = await postId(ctx, role, ctx.cast.shared, { content, metadata }, `posting as ${role}`);
        posted.set(role, { id, metadata });
      }
      for (const reader of ["a", "b"] as const) {
        const res = await ctx.as(reader).read(ctx.cast.shared, { limit: 100 });
        const list = messagesOf(ctx, res);
        for (const [writer, { id, metadata }] of posted) {
          const m = list.find((x) => x.id === id);
          if (!m) ctx.incomplete(`message ${id} is not among the newest 100 of the shared pod`);
          ctx.expect("CAP-READ-2", m.self === (writer === reader) && m.isBot === true, {
            message: `${ctx.cast[reader].name} reading a message by ${ctx.cast[writer].name}`,
            expected: { self: writer === reader, isBot: true },
            actual: { self: m.self, isBot: m.isBot },
            exchange: res,
          });
          ctx.expect("CAP-MSG-6", sameJson(m.metadata, metadata), {
            message: "metadata read back differs from what was posted",
            expected: metadata,
            actual: m.metadata,
            exchange: res,
          });
        }
      }
    },
  }),
];
