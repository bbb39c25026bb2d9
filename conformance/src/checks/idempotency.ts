/**
 * `Idempotency-Key` on posts: a repeat answers the original 201 and posts nothing, a reused key with a
 * different body is 422, a failed request leaves no key behind, and concurrent repeats make one message.
 * "Posts nothing" is observed through the mention events a post causes.
 */
import { randomBytes } from "node:crypto";
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, collect } from "../queue.js";
import { arrival, now } from "../timing.js";
import { untilSentinel } from "./support.js";

const key = () => `conformance-${randomBytes(12).toString("hex")}`;
const sameAnswer = (x: Answer, y: Answer) => JSON.stringify(x.body) === JSON.stringify(y.body);

/** Count the events carrying `nonce` that reach b: the first, then everything up to a sentinel. */
async function mentionsOf(ctx: CheckContext, nonce: string): Promise<number> {
  const got = await collect(ctx, "b", {
    match: (e) => carries(e, nonce),
    count: 1,
    deadline: now() + arrival(ctx.timing),
  });
  for (const e of got) await ctx.as("b").ack(e.id);
  const later = await untilSentinel(ctx, "b");
  return got.length + later.filter((e) => carries(e, nonce)).length;
}

export const idempotencyChecks = [
  defineCheck({
    id: "idempotency.replay",
    family: "idempotency",
    title: "answers a repeated post with the same Idempotency-Key with the original 201 and posts nothing",
    verifies: ["CAP-IDEM-1"],
    feature: "idempotency-key",
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      const k = key();
      const body = {
        content: `@${ctx.cast.b.name} conformance idempotent ${nonce}`,
        metadata: { link: ctx.canaryUrl("idem") },
      };
      const a = ctx.as("a");
      const first = await a.post(ctx.cast.shared, body, { headers: { "idempotency-key": k } });
      ctx.setupAnswer(first, demands.post, "the first post with a new key");
      const again = await a.post(ctx.cast.shared, body, { headers: { "idempotency-key": k } });
      ctx.expect("CAP-IDEM-1", again.status === 201 && sameAnswer(first, again), {
        message: "a repeat with the same key did not answer the original response",
        expected: `HTTP 201 ${first.exchange.responseBody}`,
        actual: `HTTP ${again.status} ${again.exchange.responseBody}`,
        exchange: again,
      });
      const n = await mentionsOf(ctx, nonce);
      ctx.expect("CAP-IDEM-1", n === 1, {
        message: `the repeated post was posted again: the mentioned agent got ${n} events`,
        expected: "one event",
        actual: n,
        exchange: again,
      });
    },
  }),
  defineCheck({
    id: "idempotency.key-reused",
    family: "idempotency",
    title: "answers a reused Idempotency-Key with a different body with 422 idempotency_key_reused",
    verifies: ["CAP-IDEM-2"],
    feature: "idempotency-key",
    async run(ctx: CheckContext) {
      const k = key();
      const a = ctx.as("a");
      const first = await a.post(
        ctx.cast.shared,
        { content: `conformance ${ctx.nonce()}` },
        { headers: { "idempotency-key": k } },
      );
      ctx.setupAnswer(first, demands.post, "the first post with a new key");
      const other = await a.post(
        ctx.cast.shared,
        { content: `conformance ${ctx.nonce()}` },
        { headers: { "idempotency-key": k } },
      );
      ctx.expectError(
        "CAP-IDEM-2",
        other,
        422,
        "idempotency_key_reused",
        "the same key with a different body",
      );
    },
  }),
  defineCheck({
    id: "idempotency.failure-not-remembered",
    family: "idempotency",
    title: "does not remember a key whose request failed, so a corrected retry is processed as new",
    verifies: ["CAP-IDEM-3"],
    feature: "idempotency-key",
    async run(ctx: CheckContext) {
      const k = key();
      const a = ctx.as("a");
      const bad = await a.post(ctx.cast.shared, { content: "" }, { headers: { "idempotency-key": k } });
      ctx.setupStatus("CAP-MSG-3", bad, 400, "an invalid post (empty content) with a new key");
      const good = await a.post(
        ctx.cast.shared,
        { content: `conformance ${ctx.nonce()}` },
        { headers: { "idempotency-key": k } },
      );
      // Refused (422: the key was remembered) breaks CAP-IDEM-3; accepted otherwise than 201 is CAP-MSG-1's.
      ctx.expectAccepted("CAP-IDEM-3", good, "a valid retry with the key of a failed request", demands.post);
    },
  }),
  defineCheck({
    id: "idempotency.concurrent",
    family: "idempotency",
    title: "creates one message from concurrent posts with the same Idempotency-Key",
    verifies: ["CAP-IDEM-4"],
    feature: "idempotency-key",
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      const k = key();
      const body = { content: `@${ctx.cast.b.name} conformance concurrent ${nonce}` };
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          ctx.as("a").post(ctx.cast.shared, body, { headers: { "idempotency-key": k } }),
        ),
      );
      const ids = new Set(
        answers.filter((x) => x.status === 201).map((x) => JSON.stringify((x.body as { id?: unknown })?.id)),
      );
      ctx.expect("CAP-IDEM-4", ids.size <= 1, {
        message: `four concurrent posts with one key answered ${ids.size} different message ids`,
        expected: "one message id",
        actual: [...ids],
        exchange: answers[1] as Answer,
      });
      const n = await mentionsOf(ctx, nonce);
      ctx.expect("CAP-IDEM-4", n === 1, {
        message: `concurrent posts with one key posted ${n} messages (events reaching the mentioned agent)`,
        expected: 1,
        actual: n,
      });
    },
  }),
];
