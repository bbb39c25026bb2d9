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
 * A diagnostic run of the ceiling alone (scenarios/ceiling.mjs; `pnpm bench` measures it too, as the
 * yardstick of the drains' goals); it writes no results file. PostgreSQL as the bench finds it
 * (postgres.mjs). Must never leave a process, a temp dir or a database behind (cleaned at exit, also on
 * Ctrl-C).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cleanupAll, installExitHandlers, onCleanup } from "./children.mjs";
import { createDatabase, findPostgres } from "./postgres.mjs";
import { MIN_SERVER_CORES, measureBaseline } from "./scenarios/baseline.mjs";
import { ceiling } from "./scenarios/ceiling.mjs";
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
const log = (line) => process.stdout.write(`[ceiling ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

let postgres;
/** A fresh database for one drain: a temp SQLite file, or a new database on the bench's PostgreSQL. */
async function newDb(store) {
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
  const r = await ceiling({ sizes, log, newDb }, store, mode);
  return {
    perSecond: r.eventsPerSecond,
    serverCpu: r.serverCpu,
    generatorCpu: r.generatorCpu,
    others: r.others,
  };
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
