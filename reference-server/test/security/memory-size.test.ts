/**
 * Memory size (issue 30, finding 2; CAP-ERR-10): a write whose section text is over
 * `limits.maxMemorySectionBytes`, or whose resulting envelope would be over `limits.maxMemoryBytes`, is
 * `413 memory_too_large` naming the limit, the size and the section, and the stored envelope is unchanged —
 * on PUT and on both sync modes, on both stores, exactly at the limit and one byte past it. Small limits
 * here keep the bodies small; memory-size-latency.test.ts runs the defaults over a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

const MAX = 8192;
const SECTION = 6000;

describe.each(STORES)("memory size limits on $name", ({ skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  beforeAll(async () => {
    if (skip) return;
    opened = await open();
    w = await makeWorld({
      store: opened.store,
      config: { limits: { maxMemoryBytes: MAX, maxMemorySectionBytes: SECTION } },
    });
  });
  afterAll(async () => {
    if (skip) return;
    await w.app.close();
    await opened.close();
  });

  const memory = async (token: string) => (await w.cap(token, "GET", "/memory")).body;
  const size = async (token: string) => Buffer.byteLength(await memory(token), "utf8");
  const refused = (details: Record<string, unknown>) => [
    413,
    { code: "memory_too_large", message: expect.any(String), details },
  ];
  const answer = (res: { statusCode: number; json(): unknown }) => [res.statusCode, res.json()];

  it.skipIf(skip)(
    "refuses section text one byte over the limit on PUT and both syncs, counting UTF-8 bytes",
    async () => {
      const t = w.alpha.token;
      await w.cap(t, "PUT", "/memory", { sections: { soul: { content: "kept" } } });
      const before = await memory(t);
      const over = `${"é".repeat(SECTION / 2)}x`; // 3,000 characters, 6,001 bytes
      const cases: [string, string, unknown, Record<string, unknown>][] = [
        ["PUT", "/memory", { sections: { long_term: { content: over } } }, { section: "long_term" }],
        ["PUT", "/memory", { content: over }, { section: "content" }],
        [
          "POST",
          "/memory/sync",
          { mode: "patch", sections: { shared: { content: over } } },
          { section: "shared" },
        ],
        [
          "POST",
          "/memory/sync",
          {
            mode: "full",
            sections: {
              daily: [
                { date: "2026-01-01", content: "ok" },
                { date: "2026-01-02", content: over },
              ],
            },
          },
          { section: "daily", index: 1 },
        ],
        [
          "PUT",
          "/memory",
          { sections: { relationships: [{ otherInstanceId: "p", notes: over }] } },
          { section: "relationships", index: 0 },
        ],
      ];
      for (const [method, path, body, where] of cases)
        expect(answer(await w.cap(t, method, path, body))).toEqual(
          refused({ limit: "maxMemorySectionBytes", max: SECTION, size: SECTION + 1, ...where }),
        );
      expect(await memory(t)).toBe(before);
      const at = await w.cap(t, "PUT", "/memory", {
        sections: { shared: { content: "é".repeat(SECTION / 2) } },
      });
      expect(at.statusCode).toBe(200);
    },
  );

  it.skipIf(skip)(
    "stores an envelope of exactly the limit and refuses one byte more, unchanged",
    async () => {
      const t = w.beta.token;
      // Two sections, since one may not pass SECTION. The filler's byteSize keeps four digits from the
      // probe to the limit, so the envelope grows byte for byte with it.
      const sync = (filler: number) =>
        w.cap(t, "POST", "/memory/sync", {
          mode: "full",
          sections: { soul: { content: "a".repeat(4000) }, shared: { content: "b".repeat(filler) } },
        });
      const probe = 2000;
      await sync(probe);
      const fill = probe + (MAX - (await size(t)));
      expect((await sync(fill)).statusCode).toBe(200);
      expect(await size(t)).toBe(MAX);
      const before = await memory(t);
      const over = await sync(fill + 1);
      expect(answer(over)).toEqual(refused({ limit: "maxMemoryBytes", max: MAX, size: MAX + 1 }));
      expect(await memory(t)).toBe(before);
    },
  );

  it.skipIf(skip)(
    "refuses the patch sync that would grow the envelope past the limit, whatever its own size",
    async () => {
      const t = w.gamma.token;
      const entry = (day: number) => ({
        date: `2026-02-${String(day).padStart(2, "0")}`,
        content: "n".repeat(1500),
      });
      let day = 1;
      for (;;) {
        const res = await w.cap(t, "POST", "/memory/sync", {
          mode: "patch",
          sections: { daily: [entry(day)] },
        });
        if (res.statusCode !== 200) {
          expect(answer(res)).toEqual(
            refused({ limit: "maxMemoryBytes", max: MAX, size: expect.any(Number) }),
          );
          expect((res.json() as { details: { size: number } }).details.size).toBeGreaterThan(MAX);
          break;
        }
        day++;
      }
      expect(day).toBeGreaterThan(3);
      expect(await size(t)).toBeLessThanOrEqual(MAX);
      const before = await memory(t);
      // Replacing an entry in place (same date) still fits; a full sync shrinks the envelope at once.
      const replace = await w.cap(t, "POST", "/memory/sync", {
        mode: "patch",
        sections: { daily: [entry(1)] },
      });
      expect(replace.statusCode).toBe(200);
      expect(JSON.parse(await memory(t)).sections).toEqual(JSON.parse(before).sections);
      const full = await w.cap(t, "POST", "/memory/sync", {
        mode: "full",
        sections: { soul: { content: "small" } },
      });
      expect(full.statusCode).toBe(200);
    },
  );

  it.skipIf(skip)(
    "lets only one of two concurrent writes through when both together would not fit",
    async () => {
      const extra = await w.addAgent("delta", w.podA.id);
      const half = (date: string) => ({
        mode: "patch",
        sections: { daily: [{ date, content: "h".repeat(Math.floor(MAX * 0.6)) }] },
      });
      const answers = await Promise.all([
        w.cap(extra.token, "POST", "/memory/sync", half("2026-03-01")),
        w.cap(extra.token, "POST", "/memory/sync", half("2026-03-02")),
      ]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 413]);
      expect(await size(extra.token)).toBeLessThanOrEqual(MAX);
      expect(JSON.parse(await memory(extra.token)).sections.daily).toHaveLength(1);
    },
  );

  it.skipIf(skip)(
    "accepts only writes that bring an envelope stored over the limit back under it",
    async () => {
      const extra = await w.addAgent("epsilon", w.podA.id);
      await opened.store.putMemory({
        agentId: extra.agentId,
        content: "x".repeat(MAX * 2),
        sections: {},
        sourceRuntime: null,
        syncKey: null,
        updatedAt: 0,
      });
      const grow = await w.cap(extra.token, "PUT", "/memory", { sections: { soul: { content: "more" } } });
      expect(grow.statusCode).toBe(413);
      const shrink = await w.cap(extra.token, "PUT", "/memory", { content: "short" });
      expect(shrink.statusCode).toBe(200);
      expect(await size(extra.token)).toBeLessThanOrEqual(MAX);
    },
  );
});
