#!/usr/bin/env node
/**
 * The drain without HTTP: the same queue and the same loop as the bench's drain scenarios, but each driver
 * calls the store contract directly (`claimEvents` 50, then `ackEvents` for the batch or `ackEvent` per
 * event), in this process. It tells how much of a kernel's CPU per event the store takes, so a change can
 * be aimed at the store or at the HTTP path; it is a diagnostic, not a goal, and writes no results file.
 *
 *   node bench/store-drain.mjs [--ack batch|each] [--events 50000] [--agents 8] [--rounds 3] [--postgres]
 *
 * Each round gets a fresh database (SQLite in a temp dir; with --postgres a database on the server the
 * bench would use, see postgres.mjs). Reported per round: wall time and this process's CPU (user + system)
 * per event, and the CPU the rest of the machine used meanwhile (with --postgres, the server's backends;
 * on a quiet machine nothing else). Must never write outside its temp dir or
 * the databases it created (removed at exit, also on Ctrl-C).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cleanupAll, installExitHandlers, machineBusySeconds, onCleanup } from "./children.mjs";
import { openStore, preload, provision } from "./fixture.mjs";
import { createDatabase, findPostgres } from "./postgres.mjs";

const { values } = parseArgs({
  options: {
    ack: { type: "string", default: "batch" },
    events: { type: "string", default: "50000" },
    agents: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    postgres: { type: "boolean", default: false },
  },
});
const count = Number(values.events);
const agentCount = Number(values.agents);
if (!["batch", "each"].includes(values.ack) || !(count > 0) || !(agentCount > 0)) {
  process.stderr.write(
    "usage: store-drain.mjs [--ack batch|each] [--events N] [--agents N] [--rounds N] [--postgres]\n",
  );
  process.exit(2);
}
installExitHandlers();

const RESULT = { outcome: "no_action" }; // what the HTTP drain's drivers send
const LEASE_MS = 300_000;

async function freshDb() {
  if (!values.postgres) {
    const dir = mkdtempSync(join(tmpdir(), "cap-store-drain-"));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite:${join(dir, "kernel.db")}`;
  }
  const pg = await findPostgres();
  if (pg.skipped) throw new Error(pg.skipped);
  return createDatabase(pg.adminUrl);
}

async function drainOnce(store, agents) {
  const drainAgent = async ({ agentId }) => {
    for (;;) {
      const now = Date.now();
      const { events } = await store.claimEvents({
        agentId,
        limit: 50,
        leaseMs: LEASE_MS,
        maxAttempts: 5,
        now,
      });
      if (events.length === 0) return;
      if (values.ack === "batch") {
        const items = events.map((e) => ({ eventId: e.id, result: RESULT }));
        const ok = await store.ackEvents({ agentId, items, now: Date.now() });
        if (ok.some((o) => o !== true)) throw new Error(`an ack of ${agentId} was refused`);
      } else {
        for (const e of events) {
          if (!(await store.ackEvent({ agentId, eventId: e.id, now: Date.now(), result: RESULT })))
            throw new Error(`the ack of ${e.id} was refused`);
        }
      }
    }
  };
  const cpu = process.cpuUsage();
  const busy = machineBusySeconds();
  const started = performance.now();
  await Promise.all(agents.map(drainAgent));
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const othersUs = Math.max(0, (machineBusySeconds() - busy) * 1e6 - (user + system));
  return { ms, cpuUs: user + system, othersUs };
}

try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    const db = await freshDb();
    const { podId, agents } = await provision(db, { agents: agentCount, prefix: "drain" });
    await preload(db, { podId, agents, count });
    const store = await openStore(db);
    let r;
    try {
      r = await drainOnce(store, agents);
    } finally {
      await store.close();
    }
    // Every agent's queue must be empty (an ack the store refused would have thrown above).
    const left = await openStore(db);
    try {
      for (const { agentId } of agents) {
        const now = Date.now();
        const { events } = await left.claimEvents({ agentId, limit: 1, leaseMs: 1, maxAttempts: 5, now });
        if (events.length > 0) throw new Error(`the drain left events of ${agentId} behind`);
      }
    } finally {
      await left.close();
    }
    process.stdout.write(
      `round ${round} (${values.postgres ? "postgres" : "sqlite"}, ack ${values.ack}): ${count} events in ${(r.ms / 1000).toFixed(2)} s = ` +
        `${Math.round((count * 1000) / r.ms)} events/s; ${((r.ms * 1000) / count).toFixed(1)} µs wall and ` +
        `${(r.cpuUs / count).toFixed(1)} µs of this process's CPU per event, other processes ` +
        `${(r.othersUs / count).toFixed(1)} µs per event (${(r.othersUs / 1000 / r.ms).toFixed(2)} core)\n`,
    );
  }
} finally {
  await cleanupAll();
}
