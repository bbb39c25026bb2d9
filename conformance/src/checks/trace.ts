/**
 * Trace context (`trace-context`), carried: an event enqueued by a request with a valid `traceparent` —
 * a human's post, an agent's post (agent to agent) — carries a traceparent with that trace-id and sampled
 * flag and a parent the kernel did not make up; every event of one post carries the same trace-id; and
 * `baggage` is never kept. Malformed headers and tracestate rules: trace-headers.ts; the context across
 * redeliveries, replays and the operator's view: trace-stable.ts.
 */
import { randomBytes } from "node:crypto";
import type { WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { freshTraceparent, isSampled, parseTraceparent, traceContextOf } from "./trace-context.js";
import { agentPost, eventFor, eventsFor, humanPost, showTrace } from "./trace-support.js";

/**
 * Expect `e` to carry a valid traceparent with the trace-id and sampled flag of `sent` (under
 * `requirement`), whose parent is the one sent or a span of the kernel's own (CAP-TRACE-3: never all
 * zeros, never malformed). A parent-id other than the one sent is noted: only the kernel knows it
 * recorded that span.
 */
export function expectCarried(
  ctx: CheckContext,
  requirement: string,
  e: WireEvent,
  sent: string,
  what: string,
): boolean {
  const want = parseTraceparent(sent);
  const raw = traceContextOf(e)?.traceparent;
  const got = parseTraceparent(raw);
  if (raw !== undefined && ctx.check.verifies.includes("CAP-TRACE-3"))
    ctx.expect("CAP-TRACE-3", got !== undefined && got.version === "00", {
      message: `the event enqueued by ${what} carries a traceparent that is not a valid version-00 one (a parent nobody sent)`,
      expected: "00-<32 hex, not all zeros>-<16 hex, not all zeros>-<2 hex>",
      actual: raw,
    });
  const ok =
    got !== undefined &&
    want !== undefined &&
    got.traceId === want.traceId &&
    isSampled(got) === isSampled(want);
  ctx.expect(requirement, ok, {
    message: `the event enqueued by ${what} does not carry its trace-id and sampled flag`,
    expected: { traceContext: { traceparent: `00-${want?.traceId}-<parent-id>-${want?.flags}` } },
    actual: showTrace(e),
  });
  if (ok && got && want && got.parentId !== want.parentId)
    ctx.note(
      `the event enqueued by ${what} names parent ${got.parentId}, not the ${want.parentId} sent: a span the kernel records (CAP-TRACE-3), which a black-box suite cannot see`,
    );
  return ok;
}

export const traceChecks = [
  defineCheck({
    id: "trace.human-post",
    family: "trace",
    title:
      "gives the event of a human's post with a valid traceparent that trace-id and sampled flag (sampled and not), under a parent it did not make up",
    verifies: ["CAP-TRACE-2", "CAP-TRACE-3"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const sent = [freshTraceparent(true), freshTraceparent(false)];
      const posts = [];
      for (const traceparent of sent) {
        const post = await humanPost(ctx, ["b"], { traceparent });
        if (!post) {
          ctx.note("the fixture has no human: CAP-TRACE-2 judged on agent a's posts instead");
          posts.push(await agentPost(ctx, { traceparent }));
        } else posts.push(post);
      }
      const events = await eventsFor(
        ctx,
        "b",
        posts.map((p) => p.nonce),
      );
      for (const [i, e] of events.entries())
        expectCarried(ctx, "CAP-TRACE-2", e, sent[i] as string, `a post with ${sent[i]}`);
    },
  }),
  defineCheck({
    id: "trace.agent-post",
    family: "trace",
    title:
      "gives the event of an agent's post with a valid traceparent (agent to agent) that trace-id and sampled flag",
    verifies: ["CAP-TRACE-7", "CAP-TRACE-3"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const traceparent = freshTraceparent(true);
      const { nonce } = await agentPost(ctx, { traceparent, tracestate: "cc=agent-to-agent" });
      const e = await eventFor(ctx, "b", nonce);
      expectCarried(ctx, "CAP-TRACE-7", e, traceparent, `agent a's post mentioning b with ${traceparent}`);
    },
  }),
  defineCheck({
    id: "trace.fan-out",
    family: "trace",
    title: "gives every event of one post (a human mentioning two agents) the same trace-id",
    verifies: ["CAP-TRACE-6"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const traceparent = freshTraceparent(true);
      const post =
        (await humanPost(ctx, ["a", "b"], { traceparent })) ??
        ctx.incomplete(
          "setup failed: the fixture has no human (human.token): only a human's post reaches both agents",
        );
      const events = [await eventFor(ctx, "a", post.nonce), await eventFor(ctx, "b", post.nonce)];
      const ids = events.map((e) => parseTraceparent(traceContextOf(e)?.traceparent)?.traceId);
      const want = parseTraceparent(traceparent)?.traceId;
      ctx.expect("CAP-TRACE-6", ids[0] !== undefined && ids.every((id) => id === ids[0]), {
        message: "the events one post enqueued for agents a and b do not carry the same trace-id",
        expected: `one trace-id in both (the post's: ${want})`,
        actual: { a: showTrace(events[0]), b: showTrace(events[1]) },
      });
    },
  }),
  defineCheck({
    id: "trace.no-baggage",
    family: "trace",
    title: "keeps nothing of a baggage header in the event it enqueues",
    verifies: ["CAP-TRACE-8"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const key = `ccbag${randomBytes(4).toString("hex")}`;
      const value = `v${randomBytes(6).toString("hex")}`;
      const baggage = `${key}=${value},userId=conformance`;
      const { nonce } = await agentPost(ctx, { traceparent: freshTraceparent(), baggage });
      const e = await eventFor(ctx, "b", nonce);
      const text = JSON.stringify(e);
      ctx.expect(
        "CAP-TRACE-8",
        !text.includes(key) && !text.includes(value) && !("baggage" in (traceContextOf(e) ?? {})),
        {
          message: "the event enqueued by a post with a baggage header carries that baggage",
          expected: `nothing of baggage: ${baggage}`,
          actual: e,
        },
      );
    },
  }),
];
