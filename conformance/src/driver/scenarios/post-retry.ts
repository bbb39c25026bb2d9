/**
 * Posts that fail, the way a flaky network fails them: three @mentions, and the first post of each reply
 * meets one fault — the kernel posts it and the connection is reset before the answer (a lost answer), the
 * kernel posts it and a gateway answers `502` in its place, or the kernel is never reached (`503
 * store_unavailable`, `Retry-After: 1`). Each must be retried, in the handler or by leaving the event to be
 * redelivered, under the first attempt's `Idempotency-Key`, so the pod shows each reply exactly once
 * (CAP-DRV-19): a retry without a key, or with a new one, posts twice; no retry posts nothing.
 */
import { defineDriverCheck } from "../check.js";
import type { Fault, ProxyScript, WireExchange } from "../fault-proxy.js";
import type { EventState } from "../world.js";
import { withNonce } from "./support.js";

interface Case {
  what: string;
  fault: Fault;
}

const cases: Case[] = [
  {
    what: "the kernel posted it, then the connection was reset before the answer",
    fault: { kind: "lose-answer", instead: "reset" },
  },
  {
    what: "the kernel posted it, then a gateway answered 502 in its place",
    fault: {
      kind: "lose-answer",
      instead: { status: 502, code: "x_conformance_bad_gateway", message: "upstream timed out" },
    },
  },
  {
    what: "the kernel was never reached: 503 store_unavailable, Retry-After: 1",
    fault: {
      kind: "status",
      status: 503,
      code: "store_unavailable",
      message: "the store cannot be reached",
      retryAfter: 1,
    },
  },
];

const keyOf = (x: WireExchange) => x.requestHeaders["idempotency-key"];

export const postRetryChecks = [
  defineDriverCheck({
    id: "driver.idempotency.post-retried",
    family: "idempotency",
    title:
      "a post whose answer is lost, answered 502 after the kernel posted it, or answered 503: retried under the same Idempotency-Key, one message each",
    verifies: ["CAP-DRV-19"],
    async run(ctx) {
      const nonces = cases.map(() => ctx.nonce());
      const faulted = new Set<string>();
      const script: ProxyScript = {
        before(req) {
          if (req.kind !== "post") return undefined;
          const i = nonces.findIndex((n) => req.body.includes(n));
          const n = nonces[i];
          if (n === undefined || faulted.has(n)) return undefined;
          faulted.add(n);
          return cases[i]?.fault;
        },
      };
      await ctx.begin({ script });
      const events: EventState[] = [];
      for (const [i, n] of nonces.entries())
        events.push(
          (await ctx.say(ctx.pod(), `@${ctx.agent.name} flaky network, reply ${i + 1} ${n}`)).event,
        );
      const deadline = ctx.handleMs + ctx.ms(cases.length * (ctx.leaseMs + 2000));
      const settled = await ctx.waitFor(async () => {
        for (const e of events) if ((await ctx.world.event(e.id))?.state !== "acked") return false;
        return true;
      }, deadline);
      if (!settled) ctx.note(`not every event was acked within ${deadline} ms${ctx.processNote()}`);
      const messages = await ctx.world.agentMessages(ctx.agent);
      for (const [i, n] of nonces.entries()) {
        const c = cases[i] as Case;
        const posts = ctx.wire("post").filter((x) => (x.requestBody ?? "").includes(n));
        if (posts.length === 0) {
          ctx.note(`the driver posted no reply to @mention ${i + 1}, so no post of it failed`);
          continue;
        }
        const replies = withNonce(messages, n);
        const keys = posts.map((x) => keyOf(x) ?? "(none)");
        const first = keyOf(posts[0] as WireExchange);
        const sameKey = first !== undefined && posts.every((x) => keyOf(x) === first);
        const wire = ctx.wire("poll", "post", "ack", "batch-ack", "release");
        if (
          !ctx.expect("CAP-DRV-19", replies.length === 1, {
            message:
              replies.length === 0
                ? `the first post of reply ${i + 1} failed (${c.what}) and the driver never posted it again`
                : `the first post of reply ${i + 1} failed (${c.what}) and the retry posted it again: ${replies.length} messages`,
            expected: "one message: the failed post retried under its first Idempotency-Key",
            actual: `${posts.length} attempts with Idempotency-Key ${keys.join(", ")}; ${replies.length} messages`,
            wire,
          })
        )
          continue;
        if (posts.length > 1)
          ctx.expect("CAP-DRV-19", sameKey, {
            message: `the driver retried reply ${i + 1} (${c.what}) ${first === undefined ? "without an Idempotency-Key" : "under another Idempotency-Key"}`,
            expected: "every attempt of one post under the Idempotency-Key of the first",
            actual: keys.join(", "),
            wire: posts,
          });
      }
    },
  }),
];
