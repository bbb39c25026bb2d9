/**
 * The benchmark harness still runs against the kernel as it is: `bench/run.mjs --quick` at tiny sizes,
 * writing to a temp file. This asserts that every scenario produced a figure — never how fast it was
 * (timing goals live in `pnpm bench` and docs/benchmarks.md, not in tests).
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
        [run, "--quick", "--only", "drain,wake,redelivery,footprint,idle", "--out", out],
        { timeout: 240_000 },
        (error, _stdout, stderr) => (error ? reject(new Error(`bench failed: ${stderr}`)) : resolve()),
      );
    });
    const { results } = JSON.parse(readFileSync(out, "utf8")) as {
      results: Array<{ id: string; value: number; store?: string }>;
    };
    const sqlite = results.filter((r) => r.store === "sqlite");
    for (const id of [
      "drain-sqlite-events",
      "wake-sqlite-idle-p99",
      "redelivery-sqlite-p99",
      "rss-idle-sqlite",
      "idle-sqlite-cpu",
      "idle-sqlite-rss",
    ]) {
      const r = sqlite.find((x) => x.id === id);
      expect(r, id).toBeDefined();
      expect(Number.isFinite(r!.value) && r!.value > 0, `${id} = ${r?.value}`).toBe(true);
    }
  }, 300_000);
});
