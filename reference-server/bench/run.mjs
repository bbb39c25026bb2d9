#!/usr/bin/env node
/**
 * `pnpm bench` (root: `turbo run bench --concurrency=1`; here: `node bench/run.mjs`). Runs every benchmark
 * of the kernel issue's Performance section in ONE run on this machine, each kernel figure a ratio to the
 * Fastify hello-world baseline measured in the same run (at its start and at its end; the mean is used),
 * and writes docs/benchmarks/results.json plus the figures table of docs/benchmarks.md.
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
import { cleanupAll, installExitHandlers, onCleanup } from "./children.mjs";
import { kernelMissing } from "./kernel-process.mjs";
import { createDatabase, findPostgres } from "./postgres.mjs";
import { createReport, updateDocs, writeJson, renderTable } from "./results.mjs";
import { measureBaseline } from "./scenarios/baseline.mjs";
import { conversational } from "./scenarios/conversational.mjs";
import { drain } from "./scenarios/drain.mjs";
import { footprint } from "./scenarios/footprint.mjs";
import { redelivery } from "./scenarios/redelivery.mjs";
import { wake } from "./scenarios/wake.mjs";
import { SIZES } from "./sizes.mjs";
import { round } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..");
const ALL = ["drain", "conversational", "wake", "redelivery", "footprint", "postgres"];

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    docs: { type: "boolean" },
  },
});
const only = new Set(args.only ? args.only.split(",") : ALL);
for (const name of only) if (!ALL.includes(name)) throw new Error(`--only: unknown scenario ${name} (${ALL.join(", ")})`);
const sizes = args.quick ? SIZES.quick : SIZES.full;
const fullRun = !args.quick && !args.only;
const outFile = args.out ?? (fullRun ? join(repoRoot, "docs", "benchmarks", "results.json") : join(tmpdir(), "cap-bench-results.json"));
const writeDocs = args.docs ?? (fullRun && !args.out);
const command =
  process.env.npm_lifecycle_event === "bench" && process.argv.length === 2
    ? "pnpm bench"
    : `node bench/run.mjs ${process.argv.slice(2).join(" ")}`.trim();

installExitHandlers();
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const tmp = mkdtempSync(join(tmpdir(), "cap-bench-"));
onCleanup(() => rmSync(tmp, { recursive: true, force: true }));

let pgInfo = null;
let dbCount = 0;
const ctx = {
  sizes,
  log,
  /** A fresh, empty database for one scenario: `sqlite:FILE` in the temp dir, or a new PostgreSQL database. */
  async newDb(kind, name) {
    if (kind === "sqlite") return `sqlite:${join(tmp, `${++dbCount}-${name}.db`)}`;
    return createDatabase(pgInfo.adminUrl);
  },
};

const report = createReport({ command });
let failures = 0;
const ms = (v) => round(v, 2);

/** Runs one scenario; on failure its figures are listed as skipped with the error, and the run fails. */
async function attempt(ids, fn) {
  try {
    return await fn();
  } catch (err) {
    failures++;
    log(`FAILED ${ids.join(", ")}: ${err.stack ?? err}`);
    report.skip(ids, `failed: ${String(err.message).split("\n")[0].slice(0, 300)}`);
    return null;
  }
}

const KERNEL_IDS = [
  "drain-sqlite-events", "drain-sqlite-requests", "conversational-sqlite-events",
  "wake-sqlite-idle-p50", "wake-sqlite-idle-p99", "wake-sqlite-load-p50", "wake-sqlite-load-p99",
  "redelivery-sqlite-p50", "redelivery-sqlite-p99", "rss-idle-sqlite", "rss-100k-pending-sqlite", "db-bytes-per-event-sqlite",
  "drain-postgres-events", "drain-postgres-requests", "wake-postgres-replicas-idle-p50", "wake-postgres-replicas-idle-p99",
  "wake-postgres-replicas-load-p50", "wake-postgres-replicas-load-p99",
];

const GOALS = {
  drainSqlite: { of: "ratio", op: ">=", target: 0.25 },
  drainPostgres: { of: "ratio", op: ">=", target: 0.12 },
  conversational: { of: "ratio", op: ">=", target: 0.08 },
  wakeSqlite: { of: "value", op: "<=", target: 10 },
  wakePostgres: { of: "value", op: "<=", target: 30 },
  redelivery: { of: "value", op: "<=", target: 50 },
};

function addDrain(store, r, goal) {
  report.add({ id: `drain-${store}-events`, group: "Throughput, drain", name: `${store === "sqlite" ? "SQLite" : "PostgreSQL"}, events acked/s`, unit: "events/s", value: round(r.eventsPerSecond), store, relative: true, goal, notes: r.notes });
  report.add({ id: `drain-${store}-requests`, group: "Throughput, drain", name: `${store === "sqlite" ? "SQLite" : "PostgreSQL"}, kernel HTTP requests/s`, unit: "req/s", value: round(r.requestsPerSecond), store, relative: true });
}

function addWake(prefix, label, store, r, goal) {
  for (const [phase, s, phaseName] of [["idle", r.idle, "idle"], ["load", r.loaded, "under drain load"]]) {
    const notes =
      `${s.count} samples; max ${s.max} ms; ${s.early} polls returned before the poster read its 201 (counted as 0 ms)` +
      `${s.missed ? `; ${s.missed} polls returned no or another event` : ""}` +
      (phase === "load" ? `; ${r.loadAcked} load events acked meanwhile${r.loadExhausted ? " (the load queue ran empty before the probe ended)" : ""}` : "");
    report.add({ id: `${prefix}-${phase}-p50`, group: "Long-poll wake latency", name: `${label}, ${phaseName}, p50`, unit: "ms", better: "lower", value: ms(s.p50), store, samples: s.count, notes });
    report.add({ id: `${prefix}-${phase}-p99`, group: "Long-poll wake latency", name: `${label}, ${phaseName}, p99`, unit: "ms", better: "lower", value: ms(s.p99), store, samples: s.count, goal });
  }
}

/** Events to pre-load so the drain load outlasts the wake probe, from the drain rate measured just before. */
function wakeLoadEvents(rate) {
  const probeSeconds = (sizes.wakeSamples * (sizes.parkMs + 15)) / 1000 + sizes.warmupMs / 1000;
  return Math.min(sizes.wakeLoadMax, Math.max(sizes.wakeLoadMin, Math.ceil((rate ?? 5000) * probeSeconds * 1.5)));
}

const missing = kernelMissing();
log(`sizes: ${args.quick ? "quick" : "full"}; results → ${relative(process.cwd(), outFile)}`);
if (loadavg()[0] > 1) {
  log(`warning: load average ${loadavg().map((n) => n.toFixed(2)).join(" / ")} — other work is running; figures will be noisy`);
}

const first = await measureBaseline(ctx);
const rates = {};
if (missing) {
  failures++;
  report.skip(KERNEL_IDS, missing);
} else {
  if (only.has("drain")) {
    const r = await attempt(["drain-sqlite-events", "drain-sqlite-requests"], () => drain(ctx, "sqlite"));
    if (r) {
      rates.sqlite = r.eventsPerSecond;
      addDrain("sqlite", r, GOALS.drainSqlite);
    }
  }
  if (only.has("conversational")) {
    const r = await attempt(["conversational-sqlite-events"], () => conversational(ctx, "sqlite"));
    if (r) report.add({ id: "conversational-sqlite-events", group: "Throughput, conversational", name: "SQLite, events/s", unit: "events/s", value: round(r.eventsPerSecond), store: "sqlite", relative: true, goal: GOALS.conversational, notes: r.notes });
  }
  if (only.has("wake")) {
    const r = await attempt(["wake-sqlite-idle-p50", "wake-sqlite-idle-p99", "wake-sqlite-load-p50", "wake-sqlite-load-p99"], () =>
      wake(ctx, "sqlite", { loadEvents: wakeLoadEvents(rates.sqlite) }),
    );
    if (r) addWake("wake-sqlite", "SQLite, one process", "sqlite", r, GOALS.wakeSqlite);
  }
  if (only.has("redelivery")) {
    const r = await attempt(["redelivery-sqlite-p50", "redelivery-sqlite-p99"], () => redelivery(ctx, "sqlite"));
    if (r) {
      const notes = `lease 1 s; ${r.count} redeliveries (${sizes.redeliveryAgents} agents × ${sizes.redeliveryRounds} leases), each to a long-poll already waiting; max ${r.max} ms${r.wrong ? `; ${r.wrong} polls returned something other than the expected redelivery` : ""}`;
      report.add({ id: "redelivery-sqlite-p50", group: "Redelivery latency", name: "SQLite, lease expiry → next long-poll, p50", unit: "ms", better: "lower", value: ms(r.p50), store: "sqlite", samples: r.count, notes });
      report.add({ id: "redelivery-sqlite-p99", group: "Redelivery latency", name: "SQLite, lease expiry → next long-poll, p99", unit: "ms", better: "lower", value: ms(r.p99), store: "sqlite", samples: r.count, goal: GOALS.redelivery });
    }
  }
  if (only.has("footprint")) {
    const r = await attempt(["rss-idle-sqlite", "rss-100k-pending-sqlite", "db-bytes-per-event-sqlite"], () => footprint(ctx));
    if (r) {
      report.add({ id: "rss-idle-sqlite", group: "Footprint", name: "Kernel RSS, idle", unit: "MiB", better: "lower", value: round(r.idle, 1), store: "sqlite", notes: "after /info, /metrics and one empty poll per agent (8 agents), then 1 s quiet" });
      report.add({ id: "rss-100k-pending-sqlite", group: "Footprint", name: `Kernel RSS, ${sizes.footprintEvents.toLocaleString("en-US")} pending events`, unit: "MiB", better: "lower", value: round(r.loaded, 1), store: "sqlite", notes: "same requests (the polls claim 8 of the events; /metrics counts the queue by state), then 1 s quiet" });
      report.add({ id: "db-bytes-per-event-sqlite", group: "Footprint", name: "SQLite bytes per event", unit: "bytes", better: "lower", value: round(r.bytesPerEvent), store: "sqlite", notes: `database + WAL grew from ${r.before} to ${r.after} bytes over ${sizes.footprintEvents} events with ~300-byte message.posted payloads (rows and indexes)` });
    }
  }
  if (only.has("postgres")) {
    const pgIds = ["drain-postgres-events", "drain-postgres-requests", "wake-postgres-replicas-idle-p50", "wake-postgres-replicas-idle-p99", "wake-postgres-replicas-load-p50", "wake-postgres-replicas-load-p99"];
    pgInfo = await findPostgres();
    if (pgInfo.skipped) {
      log(`PostgreSQL skipped: ${pgInfo.skipped}`);
      report.skip(pgIds, pgInfo.skipped);
    } else {
      log(`PostgreSQL: ${pgInfo.source}`);
      const d = await attempt(pgIds.slice(0, 2), () => drain(ctx, "postgres"));
      if (d) {
        rates.postgres = d.eventsPerSecond;
        addDrain("postgres", { ...d, notes: `${d.notes}; one replica; PostgreSQL from ${pgInfo.source}` }, GOALS.drainPostgres);
      }
      const w = await attempt(pgIds.slice(2), () => wake(ctx, "postgres", { loadEvents: wakeLoadEvents(rates.postgres) }));
      if (w) addWake("wake-postgres-replicas", "PostgreSQL, two replicas", "postgres-2-replicas", w, GOALS.wakePostgres);
    }
  }
}
const last = await measureBaseline(ctx);
const baseline = (first.perSecond + last.perSecond) / 2;
const drift = Math.abs(first.perSecond - last.perSecond) / baseline;
report.setBaseline(baseline);
report.add({
  id: "fastify-hello-post",
  group: "Baseline",
  name: "Fastify hello-world POST",
  unit: "req/s",
  value: round(baseline),
  store: "none",
  notes:
    `mean of ${Math.round(first.perSecond)} req/s at the start and ${Math.round(last.perSecond)} req/s at the end of the run; ` +
    `8 keep-alive connections from the bench's node:http generator; server at ${round(first.serverCpu * 100)} % / ${round(last.serverCpu * 100)} % of a core, ` +
    `generator at ${round(first.clientCpu * 100)} % / ${round(last.clientCpu * 100)} %` +
    (drift > 0.2 ? `; the two differ by ${round(drift * 100)} %: the machine was not quiet, so ratios are noisy` : ""),
});

const doc = report.finish();
writeJson(outFile, doc);
if (writeDocs) updateDocs(join(repoRoot, "docs", "benchmarks.md"), doc);
process.stdout.write(`\n${renderTable(doc)}\n\nwrote ${outFile}${writeDocs ? " and docs/benchmarks.md" : ""}\n`);
await cleanupAll();
process.exit(failures > 0 ? 1 : 0);
