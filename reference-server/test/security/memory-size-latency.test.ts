/**
 * The memory limit keeps one agent's memory from stalling everyone (issue 30, finding 2: at 52 MiB a
 * one-entry sync took 6.1 s and `/healthz` waited 6.07 s). With the default limits, over a real socket: an
 * agent's envelope is filled to the limit, then syncs at the limit (each replacing a quarter of it, and each
 * adding to it, refused) run back to back while another client polls `/healthz`; every poll answers, and
 * the worst wait stays far under the audit's. Prints the figures (docs/security.md quotes them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { makeWorld, type World } from "../helpers/world.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

const { maxMemoryBytes, maxMemorySectionBytes } = DEFAULT_CONFIG.limits;
// Four entries of this size, with the envelope's own bytes, fill the limit to within a few hundred bytes.
const ENTRY = 262_000;
const RUN_MS = 3000;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

describe.each(STORES)("/healthz while memory syncs run at the limit, on $name", ({ name, skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let base: string;
  beforeAll(async () => {
    if (skip) return;
    opened = await open();
    w = await makeWorld({ store: opened.store });
    await w.app.listen({ host: "127.0.0.1", port: 0 });
    const address = w.app.server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(async () => {
    if (skip) return;
    await w.app.close();
    await opened.close();
  });

  const sync = (body: unknown) =>
    fetch(`${base}/api/agents/runtime/memory/sync`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.alpha.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const day = (d: number, fill: string) => ({
    date: `2026-04-${String(d).padStart(2, "0")}`,
    content: fill.repeat(ENTRY),
  });

  it.skipIf(skip)(`answers every poll promptly (${skip ?? name})`, async () => {
    expect(ENTRY).toBeLessThanOrEqual(maxMemorySectionBytes);
    const full = await sync({ mode: "full", sections: { daily: [1, 2, 3, 4].map((d) => day(d, "a")) } });
    expect(full.status).toBe(200);
    const filled = Buffer.byteLength(
      await (
        await fetch(`${base}/api/agents/runtime/memory`, {
          headers: { authorization: `Bearer ${w.alpha.token}` },
        })
      ).text(),
    );
    expect(filled).toBeGreaterThan(maxMemoryBytes - 16_384);
    expect(filled).toBeLessThanOrEqual(maxMemoryBytes);

    const waits: number[] = [];
    const answers = { accepted: 0, refused: 0 };
    let running = true;
    const writer = (async () => {
      for (let i = 0; running; i++) {
        // Replace an entry in place (stays at the limit), then try to add one (over it: refused).
        const replaced = await sync({
          mode: "patch",
          sections: { daily: [day((i % 4) + 1, String(i % 10))] },
        });
        const added = await sync({ mode: "patch", sections: { daily: [day(10 + (i % 10), "z")] } });
        if (replaced.status === 200) answers.accepted++;
        if (added.status === 413) answers.refused++;
        expect([replaced.status, added.status]).toEqual([200, 413]);
      }
    })();
    const deadline = Date.now() + RUN_MS;
    while (Date.now() < deadline) {
      const t0 = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.text();
      expect(res.status).toBe(200);
      waits.push(performance.now() - t0);
    }
    running = false;
    await writer;
    waits.sort((a, b) => a - b);
    const figures = {
      store: name,
      envelopeBytes: filled,
      syncsAccepted: answers.accepted,
      syncsRefused: answers.refused,
      healthzPolls: waits.length,
      p50ms: +quantile(waits, 0.5).toFixed(1),
      p99ms: +quantile(waits, 0.99).toFixed(1),
      maxMs: +waits.at(-1)!.toFixed(1),
    };
    console.log(`memory-size latency ${JSON.stringify(figures)}`);
    expect(answers.accepted).toBeGreaterThan(3);
    // The audit's stall was 6,070 ms; one sync of a full envelope is now tens of milliseconds (up to ~200 ms
    // seen with other test runs sharing a two-core machine), so a second means the limit is not holding.
    expect(figures.maxMs).toBeLessThan(1000);
  });
});
