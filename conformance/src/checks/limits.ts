/**
 * Advertised limits (CAP-ERR-10): a kernel whose `/info` carries `limits` applies exactly those values — a
 * body nested one level deeper than `maxJsonDepth` is `400 json_too_deep` (and one at the limit is not),
 * and a memory section one byte over `maxMemorySectionBytes` is `413 memory_too_large` — and applies
 * nothing it refused. A kernel that advertises no limits is skipped, saying so.
 */
import { R } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";

interface Limits {
  maxJsonDepth?: unknown;
  maxMemorySectionBytes?: unknown;
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
