/**
 * Memory sync: `full` replaces everything, `patch` replaces what it names and merges the arrays by key,
 * and the dedup key (UTC day + sourceRuntime + SHA-256 of canonical JSON) skips exactly the repeat of the
 * last applied sync — nothing else, and never after a PUT.
 */

import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { put, readMemory, section, sync } from "./memory-support.js";
import { sameJson } from "./support.js";

export const memorySyncChecks = [
  defineCheck({
    id: "memory.sync-full-replaces-all",
    family: "memory",
    title: "replaces all sections with a full sync, removing those it does not send",
    verifies: ["CAP-MEM-11"],
    async run(ctx: CheckContext) {
      const n = ctx.nonce();
      await put(ctx, {
        sections: {
          soul: { content: n },
          shared: { content: n },
          daily: [{ date: "2026-01-01", content: n }],
        },
      });
      await sync(ctx, {
        sections: { long_term: { content: `only ${n}` } },
        mode: "full",
        sourceRuntime: "conformance",
      });
      const env = await readMemory(ctx);
      const keys = Object.keys(env.sections).filter(
        (k) => env.sections[k] !== undefined && env.sections[k] !== null,
      );
      const leftovers = keys.filter(
        (k) =>
          k !== "long_term" &&
          !(Array.isArray(env.sections[k]) && (env.sections[k] as unknown[]).length === 0),
      );
      ctx.expect("CAP-MEM-11", leftovers.length === 0 && section(env, "long_term")?.content === `only ${n}`, {
        message: "a full sync kept sections it did not send",
        expected: ["long_term"],
        actual: keys,
      });
    },
  }),
  defineCheck({
    id: "memory.sync-patch-merges",
    family: "memory",
    title: "applies a patch sync per section, merging daily by date and relationships by otherInstanceId",
    verifies: ["CAP-MEM-12"],
    async run(ctx: CheckContext) {
      const n = ctx.nonce();
      const day = (date: string, c: string) => ({ date, content: `${c} ${n}` });
      const rel = (id: string, notes: string) => ({ otherInstanceId: id, notes: `${notes} ${n}` });
      await put(ctx, {
        sections: {
          soul: { content: `soul ${n}` },
          shared: { content: `shared ${n}` },
          daily: [day("2026-01-01", "one"), day("2026-01-02", "two")],
          relationships: [rel("x", "x1"), rel("y", "y1")],
        },
      });
      await sync(ctx, {
        mode: "patch",
        sections: {
          soul: { content: `soul2 ${n}` },
          daily: [day("2026-01-02", "two'"), day("2026-01-03", "three")],
          relationships: [rel("x", "x2")],
        },
      });
      const env = await readMemory(ctx);
      const got = {
        soul: section(env, "soul")?.content,
        shared: section(env, "shared")?.content,
        daily: env.sections.daily?.map((d) => `${d.date}=${d.content}`),
        relationships: env.sections.relationships?.map((r) => `${r.otherInstanceId}=${r.notes}`),
      };
      const want = {
        soul: `soul2 ${n}`,
        shared: `shared ${n}`,
        daily: [`2026-01-01=one ${n}`, `2026-01-02=two' ${n}`, `2026-01-03=three ${n}`],
        relationships: [`x=x2 ${n}`, `y=y1 ${n}`],
      };
      ctx.expect("CAP-MEM-12", sameJson(got, want), {
        message: "the state after a patch sync",
        expected: want,
        actual: got,
      });
    },
  }),
  defineCheck({
    id: "memory.sync-dedup",
    family: "memory",
    title: "answers a repeat of the last applied sync with deduped: true and writes nothing",
    verifies: ["CAP-MEM-13", "CAP-MEM-14"],
    async run(ctx: CheckContext) {
      const body = {
        sections: { shared: { content: `dedup ${ctx.nonce()}` } },
        mode: "patch",
        sourceRuntime: "conformance",
      };
      const first = await sync(ctx, body);
      ctx.expect("CAP-MEM-14", !first.deduped, {
        message: "a new sync answered deduped: true",
        actual: first.res.body,
        exchange: first.res,
      });
      const before = await readMemory(ctx);
      const again = await sync(ctx, body, { ...demands.sync, requirement: "CAP-MEM-13" });
      ctx.expect("CAP-MEM-13", again.deduped, {
        message: "a repeat of the last sync was not deduped",
        expected: { deduped: true },
        actual: again.res.body,
        exchange: again.res,
      });
      const after = await readMemory(ctx);
      ctx.expect("CAP-MEM-13", sameJson(before, after), {
        message: "a deduped sync changed memory",
        expected: before,
        actual: after,
      });
    },
  }),
  defineCheck({
    id: "memory.sync-a-b-a",
    family: "memory",
    title: "applies A, B, A in one day three times (only the last applied sync dedups)",
    verifies: ["CAP-MEM-14"],
    async run(ctx: CheckContext) {
      const n = ctx.nonce();
      const A = { sections: { long_term: { content: `A ${n}` } }, mode: "full" };
      const B = { sections: { long_term: { content: `B ${n}` } }, mode: "full" };
      for (const [name, body] of [
        ["A", A],
        ["B", B],
        ["A again", A],
      ] as const) {
        const r = await sync(ctx, body);
        ctx.expect("CAP-MEM-14", !r.deduped, {
          message: `sync ${name} answered deduped: true`,
          actual: r.res.body,
          exchange: r.res,
        });
      }
      const env = await readMemory(ctx);
      ctx.expect("CAP-MEM-14", section(env, "long_term")?.content === `A ${n}`, {
        message: "the third sync was not applied",
        expected: `A ${n}`,
        actual: section(env, "long_term")?.content,
      });
    },
  }),
  defineCheck({
    id: "memory.put-clears-dedup",
    family: "memory",
    title: "applies a sync that repeats the last one when a PUT came in between",
    verifies: ["CAP-MEM-10"],
    async run(ctx: CheckContext) {
      const body = { sections: { shared: { content: `pc ${ctx.nonce()}` } }, mode: "patch" };
      await sync(ctx, body);
      await put(ctx, { sections: { shared: { content: "overwritten by PUT" } } });
      const r = await sync(ctx, body);
      ctx.expect("CAP-MEM-10", !r.deduped, {
        message: "a sync after a PUT was deduped",
        actual: r.res.body,
        exchange: r.res,
      });
      const env = await readMemory(ctx);
      ctx.expect("CAP-MEM-10", section(env, "shared")?.content === body.sections.shared.content, {
        message: "the sync after a PUT was not applied",
        actual: section(env, "shared")?.content,
      });
    },
  }),
  defineCheck({
    id: "memory.dedup-key",
    family: "memory",
    title: "keys dedup on sourceRuntime, mode and the canonical JSON of the sections (key order ignored)",
    verifies: ["CAP-MEM-15"],
    async run(ctx: CheckContext) {
      const n = ctx.nonce();
      const sections = { soul: { content: `k ${n}`, visibility: "pod" }, shared: { content: `s ${n}` } };
      const reordered = { shared: { content: `s ${n}` }, soul: { visibility: "pod", content: `k ${n}` } };
      const steps: [string, unknown, boolean][] = [
        ["a new sync", { sections, mode: "patch", sourceRuntime: "r1" }, false],
        [
          "the same sections from another sourceRuntime",
          { sections, mode: "patch", sourceRuntime: "r2" },
          false,
        ],
        ["the same sections in full mode", { sections, mode: "full", sourceRuntime: "r2" }, false],
        [
          "the same sync with keys in another order",
          { mode: "full", sourceRuntime: "r2", sections: reordered },
          true,
        ],
      ];
      for (const [what, body, want] of steps) {
        const r = await sync(ctx, body);
        ctx.expect("CAP-MEM-15", r.deduped === want, {
          message: `${what}: deduped should be ${want}`,
          expected: { deduped: want },
          actual: r.res.body,
          exchange: r.res,
        });
      }
    },
  }),
];
