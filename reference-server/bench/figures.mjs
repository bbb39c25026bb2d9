/**
 * From scenario outcomes to result rows of results.json: ids (stable: docs/benchmarks/expected.yaml),
 * names, units, goals from the kernel issue, and the notes that say what each run observed.
 * Must never change an id or a goal silently: the docs page matches results by id.
 */
import { round } from "./stats.mjs";

export const GOALS = {
  drainSqlite: { of: "ratio", op: ">=", target: 0.25 },
  drainPostgres: { of: "ratio", op: ">=", target: 0.15 },
  drainBatchSqlite: { of: "ratio", op: ">=", target: 1.0 },
  drainBatchPostgres: { of: "ratio", op: ">=", target: 0.5 },
  conversational: { of: "ratio", op: ">=", target: 0.1 },
  /** Drain rate with the large backlog over the rate with the small one: within 15 %. */
  backlog: { of: "value", op: ">=", target: 0.85 },
  wakeSqlite: { of: "value", op: "<=", target: 10 },
  wakePostgres: { of: "value", op: "<=", target: 30 },
  redelivery: { of: "value", op: "<=", target: 50 },
  idleCpuSqlite: { of: "value", op: "<=", target: 0.05 },
  idleCpuPostgres: { of: "value", op: "<=", target: 0.1 },
  idleWakeSqlite: { of: "value", op: "<=", target: 10 },
  idleWakePostgres: { of: "value", op: "<=", target: 30 },
  idleRss: { of: "value", op: "<=", target: 250 },
  /** Cancel to the SDK handler's abort: 1 s p99 on one kernel, 2 s across PostgreSQL replicas. */
  cancelSqlite: { of: "value", op: "<=", target: 1000 },
  cancelPostgres: { of: "value", op: "<=", target: 2000 },
  /** A running turn with nothing happening: at most one watch request per 20 s (CAP-CANCEL-16). */
  cancelWatchRate: { of: "value", op: "<=", target: 1 },
  /** The SDK's drain over the bench's own drain of the same store and ack mode (comparisons below). */
  sdkOverBare: { of: "value", op: ">=", target: 0.9 },
  /** Every drain over the least queue's drain of the same store and ack mode, in the same run. */
  drainOverCeiling: { of: "value", op: ">=", target: 0.85 },
};

export const IDS = {
  drainSqlite: ["drain-sqlite-events", "drain-sqlite-requests"],
  drainBatchSqlite: ["drain-batch-sqlite-events", "drain-batch-sqlite-requests"],
  conversational: ["conversational-sqlite-events"],
  backlog: [
    "drain-backlog-sqlite-small-events",
    "drain-backlog-sqlite-large-events",
    "drain-backlog-sqlite-ratio",
  ],
  wakeSqlite: [
    "wake-sqlite-idle-p50",
    "wake-sqlite-idle-p99",
    "wake-sqlite-load-p50",
    "wake-sqlite-load-p99",
  ],
  redelivery: ["redelivery-sqlite-p50", "redelivery-sqlite-p99"],
  footprint: ["rss-idle-sqlite", "rss-100k-pending-sqlite", "db-bytes-per-event-sqlite"],
  drainPollidSqlite: ["drain-pollid-sqlite-events", "drain-pollid-sqlite-requests"],
  drainSdkSqlite: ["drain-sdk-sqlite-events", "drain-sdk-sqlite-requests"],
  ceilingSqliteEach: ["ceiling-sqlite-each-events"],
  ceilingSqliteBatch: ["ceiling-sqlite-batch-events"],
  drainPostgres: ["drain-postgres-events", "drain-postgres-requests"],
  drainBatchPostgres: ["drain-batch-postgres-events", "drain-batch-postgres-requests"],
  drainPollidPostgres: ["drain-pollid-postgres-events", "drain-pollid-postgres-requests"],
  drainSdkPostgres: ["drain-sdk-postgres-events", "drain-sdk-postgres-requests"],
  ceilingPostgresEach: ["ceiling-postgres-each-events"],
  ceilingPostgresShared: ["ceiling-postgres-shared-events"],
  ceilingPostgresBatch: ["ceiling-postgres-batch-events"],
  idleSqlite: ["idle-sqlite-cpu", "idle-sqlite-wake-p50", "idle-sqlite-wake-p99", "idle-sqlite-rss"],
  idlePostgres: [
    "idle-postgres-replicas-cpu",
    "idle-postgres-replicas-wake-p50",
    "idle-postgres-replicas-wake-p99",
    "idle-postgres-replicas-rss",
  ],
  cancelSqlite: [
    "cancel-sqlite-p50",
    "cancel-sqlite-p99",
    "cancel-sqlite-turns-cpu",
    "cancel-sqlite-turns-cpu-added",
    "cancel-sqlite-watch-requests",
  ],
  cancelPostgres: [
    "cancel-postgres-replicas-p50",
    "cancel-postgres-replicas-p99",
    "cancel-postgres-replicas-turns-cpu",
    "cancel-postgres-replicas-turns-cpu-added",
    "cancel-postgres-replicas-watch-requests",
  ],
  wakePostgres: [
    "wake-postgres-replicas-idle-p50",
    "wake-postgres-replicas-idle-p99",
    "wake-postgres-replicas-load-p50",
    "wake-postgres-replicas-load-p99",
  ],
};

const ms = (v) => round(v, 2);
const storeLabel = (store) => (store === "sqlite" ? "SQLite" : "PostgreSQL");

/** The drains by driver: the bench's own (one ack, batch ack), with a pollId per poll, and the SDK's. */
const DRAINS = {
  each: { prefix: "drain", group: "Throughput, drain" },
  batch: { prefix: "drain-batch", group: "Throughput, drain with batch ack" },
  pollid: { prefix: "drain-pollid", group: "Throughput, drain with a pollId per poll" },
  sdk: { prefix: "drain-sdk", group: "Throughput, drain by the SDK's runDriver" },
};

/**
 * `baselines`: indices of the baseline measurements taken just before and just after the scenario.
 * `batch`: the drain acked with one batch ack per poll (ids `drain-batch-*`); `driver`: `pollid` or `sdk`
 * for those drains (ids `drain-pollid-*`, `drain-sdk-*`), whose goals are comparisons (COMPARISONS).
 */
export function drainFigures(store, r, baselines, extraNotes = "", { batch = false, driver = "bare" } = {}) {
  const kind = driver === "bare" ? (batch ? "batch" : "each") : driver;
  const { group, prefix: stem } = DRAINS[kind];
  // The ack mode the comparisons match on: the SDK batches where the kernel advertises batch-ack.
  const common = { group, store, relative: baselines, _ack: r.ackMode ?? (batch ? "batch" : "each") };
  const prefix = `${stem}-${store}`;
  const goal = {
    each: store === "sqlite" ? GOALS.drainSqlite : GOALS.drainPostgres,
    batch: store === "sqlite" ? GOALS.drainBatchSqlite : GOALS.drainBatchPostgres,
  }[kind];
  return [
    {
      id: `${prefix}-events`,
      name: `${storeLabel(store)}, events acked/s`,
      unit: "events/s",
      value: round(r.eventsPerSecond),
      ...common,
      ...(goal ? { goal } : {}),
      notes: r.notes + extraNotes,
    },
    {
      id: `${prefix}-requests`,
      name: `${storeLabel(store)}, kernel HTTP requests/s`,
      unit: "req/s",
      value: round(r.requestsPerSecond),
      ...common,
    },
  ];
}

export function backlogFigures(r, sizes) {
  const group = "Throughput, drain vs backlog";
  const k = (n) => `${n / 1000}k`;
  const common = { group, store: "sqlite", unit: "events/s" };
  return [
    {
      id: "drain-backlog-sqlite-small-events",
      name: `SQLite, ${k(sizes.backlogSmall)} pending, events acked/s`,
      value: round(r.small.eventsPerSecond),
      ...common,
      notes: r.small.notes,
    },
    {
      id: "drain-backlog-sqlite-large-events",
      name: `SQLite, ${k(sizes.backlogLarge)} pending, events acked/s`,
      value: round(r.large.eventsPerSecond),
      ...common,
      notes: r.large.notes,
    },
    {
      id: "drain-backlog-sqlite-ratio",
      group,
      name: `SQLite, drain rate at ${k(sizes.backlogLarge)} pending ÷ at ${k(sizes.backlogSmall)}`,
      unit: "× rate at small backlog",
      value: round(r.ratio, 3),
      store: "sqlite",
      goal: GOALS.backlog,
      notes: `both drains ack ${sizes.backlogMeasure} events with 8 drivers (poll 50, one ack per event), each on a fresh database and kernel`,
    },
  ];
}

export function conversationalFigures(r, baselines) {
  return [
    {
      id: "conversational-sqlite-events",
      group: "Throughput, conversational",
      name: "SQLite, events/s",
      unit: "events/s",
      value: round(r.eventsPerSecond),
      store: "sqlite",
      relative: baselines,
      goal: GOALS.conversational,
      notes: r.notes,
    },
  ];
}

export function wakeFigures(store, r) {
  const pg = store === "postgres";
  const prefix = pg ? "wake-postgres-replicas" : "wake-sqlite";
  const label = pg ? "PostgreSQL, two replicas" : "SQLite, one process";
  const out = [];
  for (const [phase, s, phaseName] of [
    ["idle", r.idle, "idle"],
    ["load", r.loaded, "under drain load"],
  ]) {
    const notes =
      `${s.count} samples; max ${s.max} ms; ${s.early} polls returned before the poster read its 201 (counted as 0 ms)` +
      (s.missed ? `; ${s.missed} polls returned no event or another one` : "") +
      (phase === "load"
        ? `; ${r.loadAcked} load events acked meanwhile${r.loadExhausted ? " (the load queue ran empty before the probe ended)" : ""}`
        : "");
    const common = {
      group: "Long-poll wake latency",
      unit: "ms",
      better: "lower",
      store: pg ? "postgres-2-replicas" : "sqlite",
      samples: s.count,
    };
    out.push({
      id: `${prefix}-${phase}-p50`,
      name: `${label}, ${phaseName}, p50`,
      value: ms(s.p50),
      ...common,
      notes,
    });
    out.push({
      id: `${prefix}-${phase}-p99`,
      name: `${label}, ${phaseName}, p99`,
      value: ms(s.p99),
      ...common,
      goal: pg ? GOALS.wakePostgres : GOALS.wakeSqlite,
    });
  }
  return out;
}

export function redeliveryFigures(r, sizes) {
  const notes =
    `lease 1 s; ${r.count} redeliveries (${sizes.redeliveryAgents} agents × ${sizes.redeliveryRounds} leases), each to a long-poll already waiting; ` +
    `max ${r.max} ms; ${r.over50} over 50 ms` +
    (r.wrong ? `; ${r.wrong} polls returned something other than the expected redelivery` : "");
  const common = {
    group: "Redelivery latency",
    unit: "ms",
    better: "lower",
    store: "sqlite",
    samples: r.count,
  };
  return [
    {
      id: "redelivery-sqlite-p50",
      name: "SQLite, lease expiry → next long-poll, p50",
      value: ms(r.p50),
      ...common,
      notes,
    },
    {
      id: "redelivery-sqlite-p99",
      name: "SQLite, lease expiry → next long-poll, p99",
      value: ms(r.p99),
      ...common,
      goal: GOALS.redelivery,
    },
  ];
}

export function footprintFigures(r, sizes) {
  const common = { group: "Footprint", better: "lower", store: "sqlite" };
  return [
    {
      id: "rss-idle-sqlite",
      name: "Kernel RSS, idle",
      unit: "MiB",
      value: round(r.idle, 1),
      ...common,
      notes: "after /info, /metrics and one empty poll per agent (8 agents), then 1 s quiet",
    },
    {
      id: "rss-100k-pending-sqlite",
      name: `Kernel RSS, ${sizes.footprintEvents.toLocaleString("en-US")} pending events`,
      unit: "MiB",
      value: round(r.loaded, 1),
      ...common,
      notes:
        "same requests (the polls claim 8 of the events; /metrics counts the queue by state), then 1 s quiet",
    },
    {
      id: "db-bytes-per-event-sqlite",
      name: "SQLite bytes per event",
      unit: "bytes",
      value: round(r.bytesPerEvent),
      ...common,
      notes: `database + WAL grew from ${r.before} to ${r.after} bytes over ${sizes.footprintEvents} events with ~300-byte message.posted payloads (rows and indexes)`,
    },
  ];
}

/** Idle long-polls: kernel CPU and RSS (the larger replica) while `drivers` wait, and wake latency meanwhile. */
export function idleFigures(store, r) {
  const pg = store === "postgres";
  const prefix = pg ? "idle-postgres-replicas" : "idle-sqlite";
  const label = pg ? "PostgreSQL, two replicas" : "SQLite, one process";
  const who = `${r.drivers.toLocaleString("en-US")} drivers in waitSeconds=${r.waitSeconds}`;
  const split = pg ? `, ${Math.ceil(r.drivers / 2)} per replica` : "";
  const common = { group: "Idle long-polls", better: "lower", store: pg ? "postgres-2-replicas" : "sqlite" };
  const cpuNotes =
    `kernel CPU from /proc/<pid>/stat over ${round(r.seconds, 1)} s (one whole wait: each driver re-polls once inside it), ` +
    `after one whole wait of warm-up (in it: ${r.warmCores.map((c) => round(c, 3)).join(" / ")} core)` +
    `${split}; per replica ${r.cores.map((c) => round(c, 3)).join(" / ")} core (user + system: ${r.split.map(([u, s]) => `${round(u, 3)} + ${round(s, 3)}`).join(" / ")}); ${r.polls} polls returned; ` +
    (r.profiled ? "run under node --cpu-prof (its sampling thread adds CPU); " : "") +
    `generator (one undici Pool per replica, one connection per driver) ${round(r.generatorCores, 3)} core`;
  return [
    {
      id: `${prefix}-cpu`,
      name: `${label}, kernel CPU, ${who}`,
      unit: "core",
      value: round(Math.max(...r.cores), 3),
      ...common,
      goal: pg ? GOALS.idleCpuPostgres : GOALS.idleCpuSqlite,
      notes: cpuNotes,
    },
    {
      id: `${prefix}-wake-p50`,
      name: `${label}, wake latency while they wait, p50`,
      unit: "ms",
      value: ms(r.wake.p50),
      ...common,
      samples: r.wake.count,
      notes:
        `${r.wake.count} samples; max ${r.wake.max} ms; ${r.wake.early} polls returned before the poster read its 201 (counted as 0 ms)` +
        (r.wake.missed ? `; ${r.wake.missed} polls returned no event or another one` : "") +
        (pg ? "; poster on replica 1, sleeper on replica 2" : ""),
    },
    {
      id: `${prefix}-wake-p99`,
      name: `${label}, wake latency while they wait, p99`,
      unit: "ms",
      value: ms(r.wake.p99),
      ...common,
      samples: r.wake.count,
      goal: pg ? GOALS.idleWakePostgres : GOALS.idleWakeSqlite,
    },
    {
      id: `${prefix}-rss`,
      name: `${label}, kernel RSS, ${who}`,
      unit: "MiB",
      value: round(Math.max(...r.rss), 1),
      ...common,
      goal: GOALS.idleRss,
      notes: `at the end of the CPU window; per replica ${r.rss.map((m) => round(m, 1)).join(" / ")} MiB`,
    },
  ];
}

/**
 * The least queue's drain (scenarios/ceiling.mjs), as a figure of its own with its ratio to the baseline;
 * the drains' comparisons divide by it (comparisons.mjs).
 */
export function ceilingFigures(store, mode, r, baselines) {
  const how = { each: "one ack per event", shared: "one ack per event, shared writes", batch: "batch ack" };
  return [
    {
      id: `ceiling-${store}-${mode}-events`,
      group: "Throughput, the least queue (ceiling)",
      name: `${storeLabel(store)}, ${how[mode]}, events acked/s`,
      unit: "events/s",
      value: round(r.eventsPerSecond),
      store,
      relative: baselines,
      _ack: mode === "batch" ? "batch" : "each",
      notes: r.notes,
    },
  ];
}

/**
 * Cancellation (scenarios/cancel.mjs): a human's cancel to the SDK handler's abort, p50/p99, and what 100
 * running turns watching for a cancel add to the kernel's CPU beside the idle drivers, with the watch
 * requests each turn makes per 20 s. Resolves {rows, skipped}: `skipped` (the reason) when no turn watched
 * twice inside the CPU window, so the watch rate has no figure.
 */
export function cancelFigures(store, r) {
  const pg = store === "postgres";
  const prefix = pg ? "cancel-postgres-replicas" : "cancel-sqlite";
  const label = pg ? "PostgreSQL, two replicas" : "SQLite, one process";
  const common = { group: "Cancellation", better: "lower", store: pg ? "postgres-2-replicas" : "sqlite" };
  const idle = `${r.drivers.toLocaleString("en-US")} idle drivers in waitSeconds=${r.waitSeconds}`;
  const l = r.latency;
  const per = (xs) => xs.map((c) => round(c, 3)).join(" / ");
  // A difference of two noisy readings: it can come out just below zero (`|| 0` drops the sign of -0).
  const added = r.busy.cores.map((c, i) => round(c - r.quiet.cores[i], 3) || 0);
  const latencyNotes =
    `${l.count} samples; max ${l.max} ms; from sending the human's POST /api/pods/{podId}/events/{eventId}/cancel ` +
    `(the operator's token) to the runDriver handler's ctx.signal abort, the handler's cancel watch sent ${r.parkMs} ms before; ` +
    `the cancel itself answered in p50 ${l.answered.p50} ms, p99 ${l.answered.p99} ms; ` +
    `beside ${idle} and ${r.turns} running turns` +
    (pg ? "; the human on replica 1, the driver on replica 2" : "") +
    (l.missed
      ? `; ${l.missed} samples missed (no start, watch or abort within the sample's time limit)`
      : "") +
    (l.unchanged ? `; ${l.unchanged} cancels answered changed: false` : "");
  const split = pg ? `, split over the replicas` : "";
  const rows = [
    {
      id: `${prefix}-p50`,
      name: `${label}, human's cancel → SDK handler's abort, p50`,
      unit: "ms",
      value: round(l.p50, 2),
      ...common,
      samples: l.count,
      notes: latencyNotes,
    },
    {
      id: `${prefix}-p99`,
      name: `${label}, human's cancel → SDK handler's abort, p99`,
      unit: "ms",
      value: round(l.p99, 2),
      ...common,
      samples: l.count,
      goal: pg ? GOALS.cancelPostgres : GOALS.cancelSqlite,
    },
    {
      id: `${prefix}-turns-cpu`,
      name: `${label}, kernel CPU, ${idle} and ${r.turns} running turns watching for a cancel`,
      unit: "core",
      value: round(Math.max(...r.busy.cores), 3),
      ...common,
      notes:
        `kernel CPU from /proc/<pid>/stat over ${round(r.busy.seconds, 1)} s once the turns had run a while${split}; ` +
        `per replica ${per(r.busy.cores)} core; the same drivers without the turns, just before: ${per(r.quiet.cores)} core ` +
        `over ${round(r.quiet.seconds, 1)} s; each turn is an SDK runDriver holding one delivery (its handler waits on ` +
        `ctx.signal), renewing the lease and watching the delivery; generator ${round(r.generatorCores, 3)} core`,
    },
    {
      id: `${prefix}-turns-cpu-added`,
      name: `${label}, kernel CPU added by ${r.turns} running turns watching for a cancel`,
      unit: "core",
      value: round(Math.max(...added), 3),
      ...common,
      notes: `per replica ${per(added)} core: with the turns minus without them, the idle drivers in both`,
    },
  ];
  const requests = Object.entries(r.requests)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const counted =
    `the ${r.turns} turns' SDK requests over the ${round(r.busy.seconds, 1)} s CPU window: ${requests} ` +
    `(watch: GET /events/{id}/cancellation; renew: the lease, as without cancel), ${round(r.watchesPer20s, 3)} watch requests per turn per 20 s on average`;
  // No turn watched twice inside the window (it is shorter than the SDK's wait): no gap, no figure.
  if (!Number.isFinite(r.shortestGapMs)) return { rows, skipped: counted };
  rows.push({
    id: `${prefix}-watch-requests`,
    name: `${label}, cancel-watch requests per running turn per 20 s, at most`,
    unit: "requests",
    value: round(20_000 / r.shortestGapMs, 3),
    ...common,
    goal: GOALS.cancelWatchRate,
    notes: `20 s ÷ the shortest time between two watch requests of one turn, both in the window (${round(r.shortestGapMs / 1000, 3)} s); ${counted}`,
  });
  return { rows };
}
