/**
 * Advertised limits (CAP-ERR-10): a kernel whose `/info` carries `limits` applies exactly those values — a
 * body nested one level deeper than `maxJsonDepth` is `400 json_too_deep` (and one at the limit is not),
 * and a memory section one byte over `maxMemorySectionBytes` is `413 memory_too_large` — and applies
 * nothing it refused — and a long-poll beyond `maxLongPollsPerToken` waiting polls of one token is `429
 * too_many_long_polls` with `Retry-After` (CAP-ERR-11). A kernel that advertises no limits is skipped,
 * saying so.
 */
import { R } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { drain, eventsOf } from "../queue.js";
import { now, pause } from "../timing.js";

interface Limits {
  maxJsonDepth?: unknown;
  maxMemorySectionBytes?: unknown;
  maxLongPollsPerToken?: unknown;
}

function advertised(ctx: CheckContext, name: keyof Limits): number {
  const limits = ctx.info?.limits as Limits | undefined;
  const v = limits?.[name];
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) ctx.skip(`/info advertises no limits.${name}`);
  return v;
}

/** `{"soul": {"content": "x", "n": [[…]]}}` with objects and arrays nested `depth` levels in all. */
function nested(depth: number): string {
  const inner = depth - 3;
  return `{"sections":{"soul":{"content":"depth ${depth}","n":${"[".repeat(inner)}${"]".repeat(inner)}}}}`;
}

export const limitChecks = [
  defineCheck({
    id: "errors.json-depth-limit",
    family: "errors",
    title: "answers a body nested deeper than limits.maxJsonDepth with 400 json_too_deep and applies nothing",
    verifies: ["CAP-ERR-10"],
    async run(ctx: CheckContext) {
      const depth = advertised(ctx, "maxJsonDepth");
      if (depth < 4) ctx.skip(`limits.maxJsonDepth ${depth} is below the memory body's own nesting`);
      const a = ctx.as("a");
      const before = await a.getMemory();
      ctx.assertStatus("CAP-ERR-10", before, 200, "GET /memory before the deep write");
      const over = await a.bare("PUT", `${R}/memory`, {
        rawBody: nested(depth + 1),
        contentType: "application/json",
      });
      ctx.expectError("CAP-ERR-10", over, 400, "json_too_deep", `a memory PUT nested ${depth + 1} levels`);
      const after = await a.getMemory();
      ctx.expect("CAP-ERR-10", JSON.stringify(after.body) === JSON.stringify(before.body), {
        message: "the refused deep write changed the memory envelope",
        expected: before.body,
        actual: after.body,
        exchange: after,
      });
      const at = await a.bare("PUT", `${R}/memory`, {
        rawBody: nested(depth),
        contentType: "application/json",
      });
      ctx.expect("CAP-ERR-10", (at.body as { code?: unknown } | undefined)?.code !== "json_too_deep", {
        message: `a memory PUT nested exactly ${depth} levels (the advertised limit) was refused as too deep`,
        actual: `HTTP ${at.status} ${at.exchange.responseBody.slice(0, 300)}`,
        exchange: at,
      });
    },
  }),
  defineCheck({
    id: "memory.section-size-limit",
    family: "memory",
    title:
      "answers a memory section over limits.maxMemorySectionBytes with 413 memory_too_large and applies nothing",
    verifies: ["CAP-ERR-10"],
    async run(ctx: CheckContext) {
      const max = advertised(ctx, "maxMemorySectionBytes");
      const body = ctx.run.settings.fixture.bodyLimitBytes ?? 1_048_576;
      if (max + 1024 > body)
        ctx.skip(`limits.maxMemorySectionBytes ${max} does not fit under the body limit`);
      const a = ctx.as("a");
      const before = await a.getMemory();
      ctx.assertStatus("CAP-ERR-10", before, 200, "GET /memory before the oversized write");
      const over = await a.putMemory({ sections: { long_term: { content: "x".repeat(max + 1) } } });
      ctx.expectError(
        "CAP-ERR-10",
        over,
        413,
        "memory_too_large",
        `a long_term section of ${max + 1} bytes (limit ${max})`,
      );
      const after = await a.getMemory();
      ctx.expect("CAP-ERR-10", JSON.stringify(after.body) === JSON.stringify(before.body), {
        message: "the refused oversized write changed the memory envelope",
        expected: before.body,
        actual: after.body,
        exchange: after,
      });
    },
  }),
];

/** Long-polls one token may have waiting at once (CAP-ERR-11), when /info advertises the bound. */
export const longPollLimitChecks = [
  defineCheck({
    id: "long-poll.per-token-limit",
    family: "long-poll",
    title:
      "answers a long-poll beyond limits.maxLongPollsPerToken waiting polls of one token with 429 too_many_long_polls and Retry-After",
    verifies: ["CAP-ERR-11"],
    feature: "long-poll",
    queue: true,
    async run(ctx: CheckContext) {
      const max = advertised(ctx, "maxLongPollsPerToken");
      if (max > 32)
        ctx.skip(`limits.maxLongPollsPerToken ${max} needs more connections than this check opens`);
      const c = ctx.as("c");
      const W = 3;
      for (let tries = 0; tries < 3; tries++) {
        await drain(ctx, "c");
        const t0 = now();
        // All to the first URL: where several replicas are given, the bound may be counted per replica.
        const one = { urlIndex: 0 };
        const waiting = Array.from({ length: max }, () => c.poll({ waitSeconds: W }, one));
        await pause(Math.round(500 * ctx.timing.timeScale));
        const extra = await c.poll({ waitSeconds: W }, one);
        const held = await Promise.all(waiting);
        // An event for c during the wait ends the polls early: the bound was not reached; try again.
        if (held.some((h) => eventsOf(ctx, h).length > 0) || now() - t0 < W * 1000 * 0.9) {
          for (const h of held) for (const e of eventsOf(ctx, h)) await c.ack(e.id);
          continue;
        }
        ctx.expectError(
          "CAP-ERR-11",
          extra,
          429,
          "too_many_long_polls",
          `long-poll number ${max + 1} while ${max} of the same token wait`,
        );
        const retry = Number(extra.headers["retry-after"]);
        ctx.expect("CAP-ERR-11", Number.isFinite(retry) && retry >= 0, {
          message: "the 429 carries no Retry-After of whole seconds",
          actual: extra.headers["retry-after"] ?? "(absent)",
          exchange: extra,
        });
        const after = await c.poll({ waitSeconds: 0 });
        ctx.expectStatus("CAP-ERR-11", after, 200, "a poll once the waiting polls have ended");
        return;
      }
      ctx.incomplete("events kept arriving for agent c during three attempts to hold its long-polls");
    },
  }),
];
