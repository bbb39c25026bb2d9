#!/usr/bin/env node
/**
 * `pnpm bench` (root: `turbo run bench --concurrency=1`; here: `node bench/run.mjs`). Runs every benchmark
 * of the kernel issue's Performance section in ONE run on this machine and writes
 * docs/benchmarks/results.json plus the figures table of docs/benchmarks.md.
 *
 * Each throughput figure is a ratio to the Fastify hello-world baseline measured in the same run, right
 * before and right after it: the run is the STEPS table below, in order, with a baseline measurement
 * after every step that needs one. First the generator is calibrated against autocannon (calibrate.mjs);
 * a run whose generator falls short, or whose baseline server was not near one core, is reported INVALID
 * (no ratios, exit code 2 outside --quick).
 *
 *   node bench/run.mjs                 full run (a few minutes on 2 cores), writes the docs files
 *   node bench/run.mjs --quick         tiny sizes to check the harness; writes to a temp file only
 *   node bench/run.mjs --only drain,wake --out /tmp/r.json        (SQLite only: add `postgres` for its variants)
 *   node bench/run.mjs --only drain,batch,pollid,sdk,ceiling,postgres   (the drains and their yardsticks)
 *   node bench/run.mjs --only postgres                             (every PostgreSQL variant)
 *   node bench/run.mjs --quick --only cancel,postgres              (the cancel scenario, both stores)
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
import { calibrate } from "./calibrate.mjs";
import { cleanupAll, installExitHandlers, isExiting, onCleanup } from "./children.mjs";
import {
  backlogFigures,
  cancelFigures,
  ceilingFigures,
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
import { backlog } from "./scenarios/backlog.mjs";
import { measureBaseline } from "./scenarios/baseline.mjs";
import { cancel } from "./scenarios/cancel.mjs";
import { ceiling } from "./scenarios/ceiling.mjs";
import { conversational } from "./scenarios/conversational.mjs";
import { drain, SkipScenario } from "./scenarios/drain.mjs";
import { footprint } from "./scenarios/footprint.mjs";
import { idle } from "./scenarios/idle.mjs";
import { redelivery } from "./scenarios/redelivery.mjs";
import { wake } from "./scenarios/wake.mjs";
import { SIZES } from "./sizes.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..");

const pgNotes = (ctx) => `; one replica; PostgreSQL: ${ctx.pgSource}`;

/** A drain step: `kind` each (the bench's one-ack drain), batch, pollid (a pollId per poll) or sdk. */
const drainStep = (store, kind, ids) => ({
  scenario: kind === "each" ? "drain" : kind,
  store,
  ids,
  ratio: true,
  run: async (ctx, { before, after }) => {
    const r = await drain(ctx, store, {
      batchAck: kind === "batch",
      driver: kind === "pollid" || kind === "sdk" ? kind : "bare",
    });
    if (kind === "each") ctx.rates[store] = r.eventsPerSecond;
    return drainFigures(store, r, [before, await after()], store === "postgres" ? pgNotes(ctx) : "", {
      batch: kind === "batch",
      driver: kind === "pollid" || kind === "sdk" ? kind : "bare",
    });
  },
});

/** The cancel scenario's rows; its watch-rate figure is listed as skipped when the window held no gap. */
async function cancelRows(ctx, store) {
  const { rows, skipped } = cancelFigures(store, await cancel(ctx, store));
  if (skipped) {
    const id = `${store === "sqlite" ? "cancel-sqlite" : "cancel-postgres-replicas"}-watch-requests`;
    report.skip(
      [id],
      `no turn sent two watch requests inside the CPU window (shorter than the SDK's wait); ${skipped}`,
    );
  }
  return rows;
}

/** The least queue's drain of one ack mode, next to the kernel's drains it is the yardstick of. */
const ceilingStep = (store, mode, ids) => ({
  scenario: "ceiling",
  store,
  ids,
  ratio: true,
  run: async (ctx, { before, after }) =>
    ceilingFigures(store, mode, await ceiling(ctx, store, mode), [before, await after()]),
});

/**
 * The run, in order. `scenario`: the name `--only` selects; `store`: sqlite or postgres (PostgreSQL steps
 * run only with `postgres` selected and a server found); `ratio`: the step's figures are ratios to the
 * baselines measured just before and after it. `run(ctx, step)` resolves the step's result rows.
 * A new scenario is one entry here plus its scenarios/NAME.mjs and its ids in figures.mjs. Each drain
 * and the least queue of its ack mode run next to each other, so their comparison (comparisons.mjs)
 * is taken in one phase of the machine.
 */
const STEPS = [
  drainStep("sqlite", "each", IDS.drainSqlite),
  drainStep("sqlite", "pollid", IDS.drainPollidSqlite),
  ceilingStep("sqlite", "each", IDS.ceilingSqliteEach),
  drainStep("sqlite", "batch", IDS.drainBatchSqlite),
  drainStep("sqlite", "sdk", IDS.drainSdkSqlite),
  ceilingStep("sqlite", "batch", IDS.ceilingSqliteBatch),
  {
    scenario: "conversational",
    store: "sqlite",
    ids: IDS.conversational,
    ratio: true,
    run: async (ctx, { before, after }) =>
      conversationalFigures(await conversational(ctx, "sqlite"), [before, await after()]),
  },
  {
    scenario: "backlog",
    store: "sqlite",
    ids: IDS.backlog,
    run: async (ctx) => backlogFigures(await backlog(ctx, "sqlite"), ctx.sizes),
  },
  drainStep("postgres", "each", IDS.drainPostgres),
  drainStep("postgres", "pollid", IDS.drainPollidPostgres),
  ceilingStep("postgres", "each", IDS.ceilingPostgresEach),
  ceilingStep("postgres", "shared", IDS.ceilingPostgresShared),
  drainStep("postgres", "batch", IDS.drainBatchPostgres),
  drainStep("postgres", "sdk", IDS.drainSdkPostgres),
  ceilingStep("postgres", "batch", IDS.ceilingPostgresBatch),
  {
    scenario: "wake",
    store: "sqlite",
    ids: IDS.wakeSqlite,
    run: async (ctx) =>
      wakeFigures("sqlite", await wake(ctx, "sqlite", { loadEvents: wakeLoadEvents(ctx, ctx.rates.sqlite) })),
  },
  {
    scenario: "wake",
    store: "postgres",
    ids: IDS.wakePostgres,
    run: async (ctx) =>
      wakeFigures(
        "postgres",
        await wake(ctx, "postgres", { loadEvents: wakeLoadEvents(ctx, ctx.rates.postgres) }),
      ),
  },
  {
    scenario: "idle",
    store: "sqlite",
    ids: IDS.idleSqlite,
    run: async (ctx) => idleFigures("sqlite", await idle(ctx, "sqlite", ctx.idleProfile)),
  },
  {
    scenario: "idle",
    store: "postgres",
    ids: IDS.idlePostgres,
    run: async (ctx) => idleFigures("postgres", await idle(ctx, "postgres", ctx.idleProfile)),
  },
  {
    scenario: "cancel",
    store: "sqlite",
    ids: IDS.cancelSqlite,
    run: async (ctx) => cancelRows(ctx, "sqlite"),
  },
  {
    scenario: "cancel",
    store: "postgres",
    ids: IDS.cancelPostgres,
    run: async (ctx) => cancelRows(ctx, "postgres"),
  },
  {
    scenario: "redelivery",
    store: "sqlite",
    ids: IDS.redelivery,
    run: async (ctx) => redeliveryFigures(await redelivery(ctx, "sqlite"), ctx.sizes),
  },
  {
    scenario: "footprint",
    store: "sqlite",
    ids: IDS.footprint,
    run: async (ctx) => footprintFigures(await footprint(ctx), ctx.sizes),
  },
];

const SCENARIOS = [...new Set(STEPS.map((s) => s.scenario))];

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    docs: { type: "boolean" },
    /** Write `node --cpu-prof` profiles of the idle scenario's kernel processes into this folder. */
    "cpu-prof-dir": { type: "string" },
    /** Drivers of the idle and cancel scenarios (default: 2,000 full, 50 quick), e.g. 10000 to check connection limits. */
    "idle-drivers": { type: "string" },
  },
});
const picked = args.only ? args.only.split(",") : [...SCENARIOS, "postgres"];
for (const name of picked)
  if (name !== "postgres" && !SCENARIOS.includes(name))
    throw new Error(`--only: unknown scenario ${name} (${[...SCENARIOS, "postgres"].join(", ")})`);
const withPostgres = picked.includes("postgres");
// `--only postgres` alone: every scenario that has a PostgreSQL variant, and no SQLite one.
const onlyPostgres = picked.length === 1 && withPostgres;
const selected = STEPS.filter((s) =>
  onlyPostgres
    ? s.store === "postgres"
    : picked.includes(s.scenario) && (s.store === "sqlite" || withPostgres),
);
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
  /** Drain rates measured so far, by store (the wake probe sizes its background load from them). */
  rates: {},
  pgSource: null,
  idleProfile: args["cpu-prof-dir"] ? { cpuProfileDir: args["cpu-prof-dir"] } : {},
  /** A fresh, empty database for one scenario: `sqlite:FILE` in the temp dir, or a new PostgreSQL database. */
  async newDb(kind, name) {
    if (kind === "sqlite") return `sqlite:${join(tmp, `${++dbCount}-${name}.db`)}`;
    return createDatabase(pg.adminUrl);
  },
};

const report = createReport({ command });
let failures = 0;

/**
 * Events to pre-load so the drain load outlasts the wake probe: the drain rate measured before (an upper
 * bound, since the probe shares the kernel) times the probe's time bound. Pre-loading is cheap (~1 s per
 * 50,000 events); a load that runs dry would turn "under load" into "idle".
 */
function wakeLoadEvents({ sizes }, rate) {
  const seconds = (sizes.wakeTimeoutMs + sizes.warmupMs) / 1000;
  return Math.min(sizes.wakeLoadMax, Math.max(sizes.wakeLoadMin, Math.ceil((rate ?? 5000) * seconds)));
}

log(
  `sizes: ${args.quick ? "quick" : "full"}; steps: ${selected.map((s) => `${s.scenario}/${s.store}`).join(", ")}; results → ${relative(process.cwd(), outFile)}`,
);
if (loadavg()[0] > 1) {
  log(
    `warning: load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" / ")}: other work is running; figures will be noisy`,
  );
}

report.setCalibration(await calibrate(ctx));
const baseline = async () => report.addBaseline(await measureBaseline(ctx));
let before = await baseline();
const missing = kernelMissing();
if (missing) {
  failures++;
  report.skip(
    selected.flatMap((s) => s.ids),
    missing,
  );
} else {
  if (selected.some((s) => s.store === "postgres")) {
    pg = await findPostgres();
    if (pg.skipped) log(`PostgreSQL skipped: ${pg.skipped}`);
    else {
      ctx.pgSource = pg.source;
      log(`PostgreSQL: ${pg.source}`);
    }
  }
  for (const step of selected) {
    if (step.store === "postgres" && pg.skipped) {
      report.skip(step.ids, pg.skipped);
      continue;
    }
    // A ratio step measures the baseline after itself (once, even if the step fails half-way).
    let next = null;
    const after = async () => {
      next ??= await baseline();
      return next;
    };
    try {
      report.add(...(await step.run(ctx, { before, after })));
    } catch (err) {
      if (isExiting()) await new Promise(() => {}); // interrupted: the exit handler is cleaning up
      if (err instanceof SkipScenario) {
        log(`skipped ${step.ids.join(", ")}: ${err.message}`);
        report.skip(step.ids, err.message);
        continue; // nothing ran: the baseline before it still stands next to the next step
      } else {
        failures++;
        log(`FAILED ${step.ids.join(", ")}: ${err.stack ?? err}`);
        report.skip(step.ids, `failed: ${String(err.message).split("\n")[0].slice(0, 300)}`);
      }
    }
    if (step.ratio) before = await after();
  }
}

const doc = report.finish();
writeJson(outFile, doc);
if (writeDocs) updateDocs(join(repoRoot, "docs", "benchmarks.md"), doc);
process.stdout.write(
  `\n${renderTable(doc)}\n\nwrote ${outFile}${writeDocs ? " and docs/benchmarks.md" : ""}\n`,
);
if (doc.valid === false) log(`INVALID run: ${doc.invalidReason}`);
await cleanupAll();
process.exit(failures > 0 ? 1 : doc.valid === false && !args.quick ? 2 : 0);
