#!/usr/bin/env node
/**
 * How far this machine lets any kernel go on the drain scenarios: the least queue (ceiling-server.mjs)
 * drained by the bench's own drivers (8 agents, poll 50, one ack per event or one batch ack per poll), each
 * run between two measurements of the Fastify hello-world baseline, as the bench's ratios are taken:
 *
 *   node bench/ceiling.mjs [--only sqlite-each,sqlite-batch,postgres-each,postgres-shared,postgres-batch] [--rounds 1]
 *
 * A goal that even this queue misses by a margin is out of reach of a kernel on this machine: the kernel
 * does all that it does and more (tokens, validation, leases with attempts and fencing, replay, wake-ups).
 * A diagnostic: it writes no results file and no goal depends on it. PostgreSQL as the bench finds it
 * (postgres.mjs). Must never leave a process, a temp dir or a database behind (cleaned at exit, also on Ctrl-C).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  cleanupAll,
  cpuSeconds,
  freePort,
  installExitHandlers,
  onCleanup,
  startChild,
  waitUntil,
  withOthersCpu,
} from "./children.mjs";
import { agentClient, drainDriver } from "./drivers.mjs";
import { createDatabase, findPostgres } from "./postgres.mjs";
import { MIN_SERVER_CORES, measureBaseline } from "./scenarios/baseline.mjs";
import { SIZES } from "./sizes.mjs";
import { round } from "./stats.mjs";

const ALL = ["sqlite-each", "sqlite-batch", "postgres-each", "postgres-shared", "postgres-batch"];
const { values } = parseArgs({
  options: { only: { type: "string", default: ALL.join(",") }, rounds: { type: "string", default: "1" } },
});
const runs = values.only.split(",");
if (runs.some((r) => !ALL.includes(r))) {
  process.stderr.write(`usage: ceiling.mjs [--only ${ALL.join(",")}] [--rounds N]\n`);
  process.exit(2);
}
installExitHandlers();
const sizes = SIZES.full;
const here = dirname(fileURLToPath(import.meta.url));
const log = (line) => process.stdout.write(`[ceiling ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

let postgres;
async function dbFor(store) {
  if (store === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "cap-ceiling-"));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite:${join(dir, "q.db")}`;
  }
  postgres ??= findPostgres(); // one server for the whole run (a throwaway cluster is made once)
  const pg = await postgres;
  if (pg.skipped) throw new Error(pg.skipped);
  return createDatabase(pg.adminUrl);
}

async function drainCeiling(run) {
  const [store, mode] = run.split("-");
  const warmup = sizes.drainWarmupEvents;
  const measure = sizes.drainEvents;
  const port = await freePort();
  const args = [join(here, "ceiling-server.mjs"), String(port), await dbFor(store), String(warmup + measure)];
  if (mode === "shared") args.push("--ack-write", "shared");
  const handle = startChild(`ceiling ${run}`, process.execPath, args);
  try {
    await waitUntil(`the ceiling server (${run})`, () => handle.output().includes("ready"), {
      handle,
      timeoutMs: 120_000,
    });
    const agents = Array.from({ length: 8 }, (_, i) => agentClient(`http://127.0.0.1:${port}`, `t-${i + 1}`));
    const batchAck = mode === "batch";
    try {
      const warmDeadline = performance.now() + sizes.drainTimeoutMs;
      await Promise.all(
        agents.map((a) => drainDriver(a, { expected: warmup / 8, deadline: warmDeadline, batchAck })),
      );
      const cpu0 = cpuSeconds(handle.pid);
      const self0 = process.cpuUsage();
      const started = performance.now();
      const deadline = started + sizes.drainTimeoutMs;
      const { result, others } = await withOthersCpu([handle.pid], () =>
        Promise.all(agents.map((a) => drainDriver(a, { expected: measure / 8, deadline, batchAck }))),
      );
      const seconds = (Math.max(...result.map((r) => r.lastAckAt)) - started) / 1000;
      const acked = result.reduce((n, r) => n + r.acked, 0);
      if (acked !== measure) throw new Error(`${run}: ${acked} of ${measure} acked`);
      const self = process.cpuUsage(self0);
      return {
        perSecond: acked / seconds,
        serverCpu: (cpuSeconds(handle.pid) - cpu0) / seconds,
        generatorCpu: (self.user + self.system) / 1e6 / seconds,
        others,
      };
    } finally {
      for (const a of agents) a.close();
    }
  } finally {
    await handle.stop();
  }
}

try {
  let before = await measureBaseline({ sizes, log });
  for (let round_ = 0; round_ < Number(values.rounds); round_++) {
    for (const run of runs) {
      const r = await drainCeiling(run);
      const after = await measureBaseline({ sizes, log });
      const baseline = (before.perSecond + after.perSecond) / 2;
      // As in the bench (MIN_SERVER_CORES): a baseline whose server was not near a core is no ceiling.
      const valid = Math.min(before.serverCpu, after.serverCpu) >= MIN_SERVER_CORES;
      log(
        `${run}: ${Math.round(r.perSecond)} events/s, ratio ${round(r.perSecond / baseline, 3)} to ${Math.round(baseline)} req/s ` +
          `(server ${round(r.serverCpu * 100)} % of a core, generator ${round(r.generatorCpu * 100)} %, other processes ${round(r.others * 100)} %)` +
          (valid ? "" : ` — INVALID: a baseline server under ${MIN_SERVER_CORES} core`),
      );
      before = after;
    }
  }
} finally {
  await cleanupAll();
}
