#!/usr/bin/env node
/**
 * `pnpm bench` (root: `turbo run bench --concurrency=1`; here: `node bench/run.mjs`). Runs every benchmark
 * of the kernel issue's Performance section in ONE run on this machine and writes
 * docs/benchmarks/results.json plus the figures table of docs/benchmarks.md.
 *
 * Each throughput figure is a ratio to the Fastify hello-world baseline measured in the same run, right
 * before and right after it (order: baseline, SQLite drain, baseline, conversational, baseline, PostgreSQL
 * drain, baseline; then the latency and footprint scenarios, which need no baseline).
 *
 *   node bench/run.mjs                 full run (a few minutes on 2 cores), writes the docs files
 *   node bench/run.mjs --quick         tiny sizes to check the harness; writes to a temp file only
 *   node bench/run.mjs --only drain,wake --out /tmp/r.json
 *
 * PostgreSQL comes from CAP_BENCH_PG_URL / CAP_TEST_PG_URL or a throwaway cluster; without one, its
 * figures are reported as skipped. Every child process, database and temp file is removed at exit.
 * Exit code 1 when any scenario failed (its figures are then listed as skipped with the error).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cleanupAll, installExitHandlers, isExiting, onCleanup } from "./children.mjs";
import {
  conversationalFigures,
  drainFigures,
  footprintFigures,
  IDS,
  idleFigures,
  redeliveryFigures,
  wakeFigures,
} from "./figures.mjs";
import { kernelMissing } from "./kernel-process.mjs";
import { createDatabase, findPostgres } from "./postgres.mjs";
import { createReport, renderTable, updateDocs, writeJson } from "./results.mjs";
import { measureBaseline } from "./scenarios/baseline.mjs";
import { conversational } from "./scenarios/conversational.mjs";
import { drain } from "./scenarios/drain.mjs";
import { footprint } from "./scenarios/footprint.mjs";
import { idle } from "./scenarios/idle.mjs";
import { redelivery } from "./scenarios/redelivery.mjs";
import { wake } from "./scenarios/wake.mjs";
import { SIZES } from "./sizes.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..");
const ALL = ["drain", "conversational", "wake", "redelivery", "footprint", "idle", "postgres"];

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    docs: { type: "boolean" },
    /** Write `node --cpu-prof` profiles of the idle scenario's kernel processes into this folder. */
    "cpu-prof-dir": { type: "string" },
    /** Drivers of the idle scenario (default: 2,000 full, 50 quick), e.g. 10000 to check connection limits. */
    "idle-drivers": { type: "string" },
  },
});
const only = new Set(args.only ? args.only.split(",") : ALL);
for (const name of only)
  if (!ALL.includes(name)) throw new Error(`--only: unknown scenario ${name} (${ALL.join(", ")})`);
const sizes = { ...(args.quick ? SIZES.quick : SIZES.full) };
if (args["idle-drivers"]) sizes.idleDrivers = Number(args["idle-drivers"]);
const fullRun = !args.quick && !args.only;
const outFile =
  args.out ??
  (fullRun ? join(repoRoot, "docs", "benchmarks", "results.json") : join(tmpdir(), "cap-bench-results.json"));
const writeDocs = args.docs ?? (fullRun && !args.out);
const command =
  process.env.npm_lifecycle_event === "bench" && process.argv.length === 2
    ? "pnpm bench"
    : `node bench/run.mjs ${process.argv.slice(2).join(" ")}`.trim();

installExitHandlers();
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const tmp = mkdtempSync(join(tmpdir(), "cap-bench-"));
onCleanup(() => rmSync(tmp, { recursive: true, force: true }));

let pg = null;
let dbCount = 0;
const ctx = {
  sizes,
  log,
  /** A fresh, empty database for one scenario: `sqlite:FILE` in the temp dir, or a new PostgreSQL database. */
  async newDb(kind, name) {
    if (kind === "sqlite") return `sqlite:${join(tmp, `${++dbCount}-${name}.db`)}`;
    return createDatabase(pg.adminUrl);
  },
};

const report = createReport({ command });
let failures = 0;

/** Runs one scenario; on failure its figures are listed as skipped with the error, and the run fails. */
async function attempt(ids, fn) {
  try {
    return await fn();
  } catch (err) {
    if (isExiting()) return new Promise(() => {}); // interrupted: the exit handler is cleaning up
    failures++;
    log(`FAILED ${ids.join(", ")}: ${err.stack ?? err}`);
    report.skip(ids, `failed: ${String(err.message).split("\n")[0].slice(0, 300)}`);
    return null;
  }
}

/** Measures the baseline and returns its index (for the ratios of the scenarios next to it). */
async function baseline() {
  return report.addBaseline(await measureBaseline(ctx));
}

/**
 * Events to pre-load so the drain load outlasts the wake probe: the drain rate measured before (an upper
 * bound, since the probe shares the kernel) times the probe's time bound. Pre-loading is cheap (~1 s per
 * 50,000 events); a load that runs dry would turn "under load" into "idle".
 */
function wakeLoadEvents(rate) {
  const seconds = (sizes.wakeTimeoutMs + sizes.warmupMs) / 1000;
  return Math.min(sizes.wakeLoadMax, Math.max(sizes.wakeLoadMin, Math.ceil((rate ?? 5000) * seconds)));
}

log(`sizes: ${args.quick ? "quick" : "full"}; results → ${relative(process.cwd(), outFile)}`);
if (loadavg()[0] > 1) {
  log(
    `warning: load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" / ")}: other work is running; figures will be noisy`,
  );
}

const missing = kernelMissing();
let before = await baseline();
const rates = {};
if (missing) {
  failures++;
  report.skip(Object.values(IDS).flat(), missing);
} else {
  if (only.has("drain")) {
    const r = await attempt(IDS.drainSqlite, () => drain(ctx, "sqlite"));
    const after = await baseline();
    if (r) {
      rates.sqlite = r.eventsPerSecond;
      report.add(...drainFigures("sqlite", r, [before, after]));
    }
    before = after;
  }
  if (only.has("conversational")) {
    const r = await attempt(IDS.conversational, () => conversational(ctx, "sqlite"));
    const after = await baseline();
    if (r) report.add(...conversationalFigures(r, [before, after]));
    before = after;
  }
  if (only.has("postgres")) {
    pg = await findPostgres();
    if (pg.skipped) {
      log(`PostgreSQL skipped: ${pg.skipped}`);
      report.skip(
        [...IDS.drainPostgres, ...IDS.wakePostgres, ...(only.has("idle") ? IDS.idlePostgres : [])],
        pg.skipped,
      );
      pg = null;
    } else {
      log(`PostgreSQL: ${pg.source}`);
      const r = await attempt(IDS.drainPostgres, () => drain(ctx, "postgres"));
      const after = await baseline();
      if (r) {
        rates.postgres = r.eventsPerSecond;
        report.add(
          ...drainFigures("postgres", r, [before, after], `; one replica; PostgreSQL: ${pg.source}`),
        );
      }
    }
  }
  if (only.has("wake")) {
    const r = await attempt(IDS.wakeSqlite, () =>
      wake(ctx, "sqlite", { loadEvents: wakeLoadEvents(rates.sqlite) }),
    );
    if (r) report.add(...wakeFigures("sqlite", r));
  }
  if (pg) {
    const r = await attempt(IDS.wakePostgres, () =>
      wake(ctx, "postgres", { loadEvents: wakeLoadEvents(rates.postgres) }),
    );
    if (r) report.add(...wakeFigures("postgres", r));
  }
  if (only.has("redelivery")) {
    const r = await attempt(IDS.redelivery, () => redelivery(ctx, "sqlite"));
    if (r) report.add(...redeliveryFigures(r, sizes));
  }
  if (only.has("footprint")) {
    const r = await attempt(IDS.footprint, () => footprint(ctx));
    if (r) report.add(...footprintFigures(r, sizes));
  }
  if (only.has("idle")) {
    const profile = args["cpu-prof-dir"] ? { cpuProfileDir: args["cpu-prof-dir"] } : {};
    const r = await attempt(IDS.idleSqlite, () => idle(ctx, "sqlite", profile));
    if (r) report.add(...idleFigures("sqlite", r));
    if (!pg && !only.has("postgres")) {
      const found = await findPostgres();
      if (found.skipped) report.skip(IDS.idlePostgres, found.skipped);
      else pg = found;
    }
    if (pg) {
      const rp = await attempt(IDS.idlePostgres, () => idle(ctx, "postgres", profile));
      if (rp) report.add(...idleFigures("postgres", rp));
    }
  }
}

const doc = report.finish();
writeJson(outFile, doc);
if (writeDocs) updateDocs(join(repoRoot, "docs", "benchmarks.md"), doc);
process.stdout.write(
  `\n${renderTable(doc)}\n\nwrote ${outFile}${writeDocs ? " and docs/benchmarks.md" : ""}\n`,
);
await cleanupAll();
process.exit(failures > 0 ? 1 : 0);
