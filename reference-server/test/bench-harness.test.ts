/**
 * The benchmark harness still runs against the kernel as it is: `bench/run.mjs --quick` at tiny sizes,
 * writing to a temp file. This asserts that every scenario produced a figure, and that the drains'
 * comparisons (with a pollId per poll, the SDK's runDriver, the least queue) were computed from figures
 * of the same run — never how fast anything was (timing goals live in `pnpm bench` and
 * docs/benchmarks.md, not in tests).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const run = join(import.meta.dirname, "..", "bench", "run.mjs");

describe("the benchmark harness", () => {
  it("produces a figure for every SQLite scenario at quick sizes", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cap-bench-")), "results.json");
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          run,
          "--quick",
          "--only",
          "drain,batch,pollid,sdk,ceiling,wake,redelivery,footprint,idle",
          "--out",
          out,
        ],
        { timeout: 270_000 },
        (error, _stdout, stderr) => (error ? reject(new Error(`bench failed: ${stderr}`)) : resolve()),
      );
    });
    const { results, skipped } = JSON.parse(readFileSync(out, "utf8")) as {
      results: Array<{ id: string; value: number; store?: string; goal?: { of: string; target: number } }>;
      skipped: Array<{ ids: string[]; reason: string }>;
    };
    const sqlite = results.filter((r) => r.store === "sqlite");
    for (const id of [
      "drain-sqlite-events",
      "wake-sqlite-idle-p99",
      "redelivery-sqlite-p99",
      "rss-idle-sqlite",
      "idle-sqlite-cpu",
      "idle-sqlite-rss",
      "drain-batch-sqlite-events",
      "drain-pollid-sqlite-events",
      "drain-sdk-sqlite-events",
      "ceiling-sqlite-each-events",
      "ceiling-sqlite-batch-events",
      "drain-sdk-sqlite-over-bare",
      "drain-pollid-sqlite-over-bare",
      "drain-sqlite-over-ceiling",
      "drain-batch-sqlite-over-ceiling",
      "drain-pollid-sqlite-over-ceiling",
      "drain-sdk-sqlite-over-ceiling",
    ]) {
      const r = sqlite.find((x) => x.id === id);
      expect(r, id).toBeDefined();
      expect(Number.isFinite(r!.value) && r!.value > 0, `${id} = ${r?.value}`).toBe(true);
    }
    // The goals stated as comparisons: the SDK's drain against the bench's, every drain against the ceiling.
    expect(results.find((r) => r.id === "drain-sdk-sqlite-over-bare")?.goal).toMatchObject({ target: 0.9 });
    expect(results.find((r) => r.id === "drain-pollid-sqlite-over-ceiling")?.goal).toMatchObject({
      target: 0.85,
    });
    expect(skipped).toEqual([]);
  }, 330_000);
});
