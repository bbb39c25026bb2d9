/**
 * Posting messages: 201 `{id, createdAt}`, content validation and size limit, replies only within a pod,
 * and the wake-up rules (a mention wakes the mentioned agent exactly once; an agent's post wakes nobody
 * else). Content and metadata are checked verbatim through the events they cause.
 */
import { randomBytes } from "node:crypto";
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, collect } from "../queue.js";
import { arrival, now } from "../timing.js";
import { isUtcTimestamp, postId, sameJson, untilSentinel, utf8Bytes } from "./support.js";

/** A shell fragment that prints `{"content": head + char × n}` (for curl reproducers of huge bodies). */
const generated = (head: string, char: string, n: number) =>
  `"$(node -e 'process.stdout.write(JSON.stringify({content: ${JSON.stringify(head)} + ${JSON.stringify(char)}.repeat(${n})}))')"`;

function maxMessageBytes(ctx: CheckContext): number {
  const advertised = ctx.info?.maxMessageBytes;
  if (typeof advertised === "number") return advertised;
  ctx.note("maxMessageBytes not advertised: using the fixture value or 65536");
  return ctx.run.settings.fixture.maxMessageBytes ?? 65_536;
}

export const messageChecks = [
  defineCheck({
    id: "messages.post-created",
    family: "messages",
    title: "answers a valid post with 201 {id, createdAt}",
    verifies: ["CAP-MSG-1", "CAP-COMPAT-2"],
    async run(ctx: CheckContext) {
      const res = await ctx.as("a").post(ctx.cast.shared, {
        content: `conformance post ${ctx.nonce()} ${ctx.canaryUrl("content")}`,
        metadata: { kind: "conformance", link: ctx.canaryUrl("metadata") },
      });
      const body = res.body as { id?: unknown; createdAt?: unknown } | undefined;
      ctx.expect("CAP-MSG-1", res.status === 201 && typeof body?.id === "string" && body.id.length > 0, {
        message: "a valid post",
        expected: "HTTP 201 {id, createdAt}",
        actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
        exchange: res,
      });
      ctx.expect("CAP-COMPAT-2", isUtcTimestamp(body?.createdAt), {
        message: "createdAt is not an RFC 3339 date-time in UTC",
        actual: body?.createdAt,
        exchange: res,
      });
    },
  }),
  defineCheck({
    id: "messages.mention-wakes-agent",
    family: "messages",
    title:
      "enqueues exactly one mention.received for a mentioned agent, carrying content and metadata verbatim",
    verifies: ["CAP-MSG-7", "CAP-MSG-2", "CAP-MSG-6", "CAP-MSG-1"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      const link = ctx.canaryUrl("mention");
      const content = `  @${ctx.cast.b.name} **conformance** ${nonce}\n\n- ünïcödé 🚀 <b>not html</b> ${link}  \n`;
      const metadata = {
        kind: `conformance.kind-${nonce}`,
        nested: { list: [1, "two", null], link },
        empty: {},
      };
      const post = await ctx.as("a").post(ctx.cast.shared, { content, metadata });
      ctx.assertStatus("CAP-MSG-1", post, 201, "posting a mention");
      const [e] = await collect(ctx, "b", {
        match: (x) => carries(x, nonce),
        count: 1,
        deadline: now() + arrival(ctx.timing),
      });
      ctx.assert("CAP-MSG-7", e !== undefined, {
        message: `no event reached ${ctx.cast.b.name} after ${ctx.cast.a.name} mentioned it`,
        expected: "a mention.received event",
        actual: "nothing",
        exchange: post,
      });
      await ctx.as("b").ack(e.id);
      const p = (e.payload ?? {}) as Record<string, unknown>;
      ctx.expect("CAP-MSG-7", e.type === "mention.received" && p.mention === ctx.cast.b.name, {
        message: "the event is not a mention.received naming the mentioned agent",
        expected: { type: "mention.received", mention: ctx.cast.b.name },
        actual: { type: e.type, mention: p.mention },
      });
      ctx.expect("CAP-MSG-1", (p.author as { name?: unknown } | undefined)?.name === ctx.cast.a.name, {
        message: "the message's author is not the posting agent",
        expected: ctx.cast.a.name,
        actual: p.author,
      });
      ctx.expect("CAP-MSG-2", p.content === content, {
        message: "content was not kept verbatim",
        expected: content,
        actual: p.content,
      });
      ctx.expect("CAP-MSG-6", sameJson(p.metadata, metadata), {
        message: "metadata was not passed through unchanged",
        expected: metadata,
        actual: p.metadata,
      });
      const before = await untilSentinel(ctx, "b");
      ctx.expect("CAP-MSG-7", !before.some((x) => carries(x, nonce)), {
        message: "one mention enqueued more than one event",
        expected: "exactly one event",
        actual: before.filter((x) => carries(x, nonce)),
      });
    },
  }),
  defineCheck({
    id: "messages.agent-post-wakes-only-mentioned",
    family: "messages",
    title: "wakes nobody for an agent's post without a mention, and never wakes the author",
    verifies: ["CAP-MSG-9", "CAP-MSG-7"],
    queue: true,
    async run(ctx: CheckContext) {
      const quiet = ctx.nonce();
      const self = ctx.nonce();
      const a = ctx.as("a");
      ctx.setupAnswer(
        await a.post(ctx.cast.shared, { content: `conformance: no mention ${quiet}` }),
        demands.post,
        "posting without a mention",
      );
      ctx.setupAnswer(
        await a.post(ctx.cast.shared, { content: `@${a.name} ${self}` }),
        demands.post,
        "posting a mention of the author itself",
      );
      const atB = await untilSentinel(ctx, "b");
      ctx.expect("CAP-MSG-9", !atB.some((e) => carries(e, quiet)), {
        message: `${ctx.cast.b.name} was woken by an agent's post that mentions nobody`,
        expected: "no event",
        actual: atB.filter((e) => carries(e, quiet)),
      });
      const atA = await untilSentinel(ctx, "a");
      ctx.expect("CAP-MSG-7", !atA.some((e) => carries(e, self)), {
        message: "the author was woken by its own mention",
        expected: "no event",
        actual: atA.filter((e) => carries(e, self)),
      });
      ctx.expect("CAP-MSG-9", !atA.some((e) => carries(e, quiet)), {
        message: "the author was woken by its own post",
        expected: "no event",
        actual: atA.filter((e) => carries(e, quiet)),
      });
    },
  }),
  defineCheck({
    id: "messages.invalid-content",
    family: "messages",
    title: "answers missing, non-string, empty or blank content with 400 validation_failed",
    verifies: ["CAP-MSG-3"],
    async run(ctx: CheckContext) {
      const bodies = [
        { metadata: { note: ctx.nonce() } },
        { content: 42 },
        { content: "" },
        { content: " \n\t  " },
      ];
      for (const body of bodies) {
        const res = await ctx.as("a").post(ctx.cast.shared, body);
        ctx.expectError("CAP-MSG-3", res, 400, "validation_failed", `posting ${JSON.stringify(body)}`);
      }
    },
  }),
  defineCheck({
    id: "messages.content-too-large",
    family: "messages",
    title:
      "answers content over maxMessageBytes UTF-8 bytes with 413 content_too_large, and accepts exactly the limit",
    verifies: ["CAP-MSG-4", "CAP-INFO-2"],
    async run(ctx: CheckContext) {
      const max = maxMessageBytes(ctx);
      const head = `conformance ${ctx.nonce()} `;
      // Two-byte characters: a kernel counting characters instead of bytes lets this through.
      const n = Math.ceil((max - utf8Bytes(head)) / 2) + 1;
      const over = head + "é".repeat(n);
      const res = await ctx
        .as("a")
        .post(ctx.cast.shared, { content: over }, { curlBody: generated(head, "é", n) });
      ctx.expectError(
        "CAP-MSG-4",
        res,
        413,
        "content_too_large",
        `content of ${utf8Bytes(over)} bytes (limit ${max})`,
      );
      if (ctx.info && typeof ctx.info.maxMessageBytes === "number") {
        const exact = head + "x".repeat(max - utf8Bytes(head));
        const curlBody = generated(head, "x", max - utf8Bytes(head));
        const ok = await ctx.as("a").post(ctx.cast.shared, { content: exact }, { curlBody });
        // Refusing the advertised limit breaks CAP-INFO-2; accepting it with another answer is CAP-MSG-1's.
        ctx.expectAccepted(
          "CAP-INFO-2",
          ok,
          `content of exactly maxMessageBytes (${max}) bytes`,
          demands.post,
        );
      }
    },
  }),
  defineCheck({
    id: "messages.reply-within-pod",
    family: "messages",
    title: "answers a replyToMessageId outside the pod with 400 message_not_in_pod, and accepts one inside",
    verifies: ["CAP-MSG-5"],
    async run(ctx: CheckContext) {
      const elsewhere = await postId(
        ctx,
        "c",
        ctx.cast.other,
        { content: `conformance in the other pod ${ctx.nonce()}` },
        "posting into the other pod",
      );
      const here = await postId(
        ctx,
        "a",
        ctx.cast.shared,
        { content: `conformance thread root ${ctx.nonce()}` },
        "posting a thread root",
      );
      const a = ctx.as("a");
      for (const [target, what] of [
        [elsewhere, "a message of another pod"],
        [`msg_${randomBytes(8).toString("hex")}`, "a message that does not exist"],
      ] as const) {
        const res = await a.post(ctx.cast.shared, {
          content: `conformance reply ${ctx.nonce()}`,
          replyToMessageId: target,
        });
        ctx.expectError("CAP-MSG-5", res, 400, "message_not_in_pod", `replying to ${what}`);
      }
      const ok = await a.post(ctx.cast.shared, {
        content: `conformance reply ${ctx.nonce()}`,
        replyToMessageId: here,
      });
      ctx.expectAccepted("CAP-MSG-5", ok, "replying to a message of the same pod", demands.post);
    },
  }),
];
