/**
 * Memory envelope and PUT: the envelope shape, whole-section replacement that keeps unnamed sections,
 * server-stamped metadata that ignores client values, the `content` mirror of `long_term`, and the
 * validation of what a write may name.
 */

import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { put, readMemory, section, sync } from "./memory-support.js";
import { isUtcTimestamp, utf8Bytes } from "./support.js";

export const memoryChecks = [
  defineCheck({
    id: "memory.envelope",
    family: "memory",
    title: "answers GET /memory with the envelope {content, sections, schemaVersion: 2}",
    verifies: ["CAP-MEM-1"],
    async run(ctx: CheckContext) {
      for (const role of ["a", "b", "c"] as const) {
        const env = await readMemory(ctx, role);
        ctx.expect("CAP-MEM-1", typeof env.content === "string" && env.schemaVersion === 2, {
          message: `the envelope of ${ctx.cast[role].name}`,
          expected: "content: string, schemaVersion: 2",
          actual: { content: typeof env.content, schemaVersion: env.schemaVersion },
        });
      }
    },
  }),
  defineCheck({
    id: "memory.put-replaces-named-sections",
    family: "memory",
    title: "replaces each section a PUT names as a whole, arrays included, and keeps the others",
    verifies: ["CAP-MEM-8", "CAP-MEM-5"],
    async run(ctx: CheckContext) {
      const n = ctx.nonce();
      const d = (date: string, content: string) => ({ date, content: `${content} ${n}` });
      await put(ctx, {
        sections: {
          soul: { content: `soul ${n}`, visibility: "public" },
          daily: [d("2026-01-01", "one"), d("2026-01-02", "two")],
        },
      });
      await put(ctx, {
        sections: { shared: { content: `shared ${n} ${ctx.canaryUrl("memory")}`, visibility: "pod" } },
      });
      let env = await readMemory(ctx);
      ctx.expect(
        "CAP-MEM-8",
        section(env, "soul")?.content === `soul ${n}` && env.sections.daily?.length === 2,
        {
          message: "a PUT of one section dropped the sections it did not name",
          expected: { soul: `soul ${n}`, daily: 2 },
          actual: { soul: section(env, "soul")?.content, daily: env.sections.daily?.length },
        },
      );
      await put(ctx, {
        sections: { daily: [d("2026-01-03", "three")], soul: { content: `soul again ${n}` } },
      });
      env = await readMemory(ctx);
      const dates = env.sections.daily?.map((x) => x.date);
      ctx.expect("CAP-MEM-8", dates?.join() === "2026-01-03", {
        message: "daily was merged instead of replaced whole",
        expected: ["2026-01-03"],
        actual: dates,
      });
      ctx.expect("CAP-MEM-8", section(env, "shared")?.content !== undefined, {
        message: "shared was dropped by a PUT that did not name it",
        actual: Object.keys(env.sections),
      });
      ctx.expect("CAP-MEM-5", section(env, "soul")?.visibility === "private", {
        message: "a section replaced without visibility did not become private",
        expected: "private",
        actual: section(env, "soul")?.visibility,
      });
      ctx.expect("CAP-MEM-5", env.sections.daily?.[0]?.visibility === "private", {
        message: "a daily entry written without visibility is not private",
        expected: "private",
        actual: env.sections.daily?.[0]?.visibility,
      });
    },
  }),
  defineCheck({
    id: "memory.server-stamped",
    family: "memory",
    title: "stamps updatedAt and byteSize itself, discarding client values without rejecting them",
    verifies: ["CAP-MEM-4", "CAP-COMPAT-2"],
    async run(ctx: CheckContext) {
      const content = `é☃🚀 ${ctx.nonce()}`;
      const bogus = "1999-01-01T00:00:00Z";
      // Client-stamped values are to be discarded, not rejected: a refusal breaks CAP-MEM-4 itself.
      await put(
        ctx,
        {
          schemaVersion: 9,
          sections: {
            runtime_meta: { content, updatedAt: bogus, byteSize: 1 },
            relationships: [{ otherInstanceId: "conformance-peer", notes: "n", updatedAt: bogus }],
          },
        },
        { refusalBreaks: "CAP-MEM-4" },
      );
      const env = await readMemory(ctx);
      const s = section(env, "runtime_meta");
      const rel = env.sections.relationships?.[0];
      ctx.expect("CAP-MEM-4", s?.byteSize === utf8Bytes(content), {
        message: "byteSize is not the UTF-8 size of content",
        expected: utf8Bytes(content),
        actual: s?.byteSize,
      });
      for (const [what, v] of [
        ["runtime_meta.updatedAt", s?.updatedAt],
        ["relationships[0].updatedAt", rel?.updatedAt],
      ] as const) {
        ctx.expect(
          "CAP-MEM-4",
          typeof v === "string" && v !== bogus && Date.parse(v) > Date.parse("2020-01-01"),
          { message: `${what} was not stamped by the kernel`, actual: v },
        );
        ctx.expect("CAP-COMPAT-2", isUtcTimestamp(v), {
          message: `${what} is not an RFC 3339 date-time in UTC`,
          actual: v,
        });
      }
      ctx.expect("CAP-MEM-4", env.schemaVersion === 2, {
        message: "the client's schemaVersion was kept",
        expected: 2,
        actual: env.schemaVersion,
      });
    },
  }),
  defineCheck({
    id: "memory.source-runtime",
    family: "memory",
    title: "stores sourceRuntime unchanged",
    verifies: ["CAP-MEM-6"],
    async run(ctx: CheckContext) {
      const tag = `conformance/${ctx.nonce()} ${ctx.canaryUrl("runtime")}`.slice(0, 200);
      await put(ctx, { content: `mirror ${ctx.nonce()}`, sourceRuntime: tag });
      const env = await readMemory(ctx);
      ctx.expect("CAP-MEM-6", env.sourceRuntime === tag, {
        message: "sourceRuntime was not stored unchanged",
        expected: tag,
        actual: env.sourceRuntime,
      });
    },
  }),
  defineCheck({
    id: "memory.content-mirror",
    family: "memory",
    title: "sets content from the write's content, else from sections.long_term",
    verifies: ["CAP-MEM-9"],
    async run(ctx: CheckContext) {
      const n = ctx.nonce();
      const cases: [string, unknown, string, boolean][] = [
        ["a PUT of long_term only", { sections: { long_term: { content: `lt1 ${n}` } } }, `lt1 ${n}`, false],
        [
          "a PUT of content and long_term",
          { content: `c2 ${n}`, sections: { long_term: { content: `lt2 ${n}` } } },
          `c2 ${n}`,
          false,
        ],
        [
          "a patch sync of long_term",
          { sections: { long_term: { content: `lt3 ${n}` } }, mode: "patch" },
          `lt3 ${n}`,
          true,
        ],
      ];
      for (const [what, body, want, viaSync] of cases) {
        if (viaSync) await sync(ctx, body);
        else await put(ctx, body);
        const env = await readMemory(ctx);
        ctx.expect("CAP-MEM-9", env.content === want, {
          message: `content after ${what}`,
          expected: want,
          actual: env.content,
        });
      }
    },
  }),
  defineCheck({
    id: "memory.write-validation",
    family: "memory",
    title:
      "rejects a PUT with neither content nor sections (400 validation_failed) and unknown section keys (400 unknown_memory_section)",
    verifies: ["CAP-MEM-7", "CAP-MEM-3"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      for (const body of [{}, { sourceRuntime: "conformance" }]) {
        const res = await a.putMemory(body);
        ctx.expectError("CAP-MEM-7", res, 400, "validation_failed", `PUT ${JSON.stringify(body)}`);
      }
      const writes = [
        await a.putMemory({
          sections: { soul: { content: "s" }, bogus: { content: ctx.canaryUrl("bogus") } },
        }),
        await a.sync({ sections: { notes: { content: "x" } }, mode: "patch" }),
      ];
      for (const [i, res] of writes.entries()) {
        const key = i === 0 ? "bogus" : "notes";
        ctx.expectError(
          "CAP-MEM-3",
          res,
          400,
          "unknown_memory_section",
          `a ${i === 0 ? "PUT" : "sync"} naming section "${key}"`,
        );
        const listed = (res.body as { details?: { sections?: unknown } } | undefined)?.details?.sections;
        ctx.expect("CAP-MEM-3", Array.isArray(listed) && listed.includes(key), {
          message: "details.sections does not list the unknown key",
          expected: [key],
          actual: listed,
          exchange: res,
        });
      }
    },
  }),
];
