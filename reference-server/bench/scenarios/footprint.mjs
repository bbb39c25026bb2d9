/**
 * Footprint (SQLite): kernel RSS idle (a provisioned database, a few requests served, then 1 s quiet) and
 * again on the same database with `sizes.footprintEvents` (100,000) pending events, after the same
 * requests plus a `/metrics` scrape (which counts the queue by state, so it reads the events table).
 * DB bytes per event: growth of the database files (main file + WAL) over the pre-load, divided by the
 * events added; each event carries a ~300-byte `message.posted` payload (fixture.mjs).
 */
import { existsSync, statSync } from "node:fs";
import { rssMiB } from "../children.mjs";
import { agentClient } from "../drivers.mjs";
import { preload, provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { createClient } from "../load.mjs";
import { sleep } from "../stats.mjs";

function dbBytes(path) {
  let n = 0;
  for (const f of [path, `${path}-wal`]) if (existsSync(f)) n += statSync(f).size;
  return n;
}

async function settledRss(db, fx) {
  const kernel = await startKernel(db, { name: "cap-kernel (sqlite, footprint)" });
  const plain = createClient(kernel.baseUrl);
  const agents = fx.agents.map((a) => agentClient(kernel.baseUrl, a.token));
  try {
    await plain.request("GET", "/api/agents/runtime/info", {
      headers: { authorization: `Bearer ${fx.agents[0].token}` },
    });
    await plain.request("GET", "/metrics");
    for (const a of agents) await a.poll(1, 0);
    await sleep(1000);
    return rssMiB(kernel.handle.pid);
  } finally {
    plain.close();
    for (const a of agents) a.close();
    await kernel.handle.stop();
  }
}

export async function footprint({ sizes, log, newDb }) {
  const db = await newDb("sqlite", "footprint");
  const path = db.slice("sqlite:".length);
  const fx = await provision(db, { agents: 8, prefix: "fp" });
  const idle = await settledRss(db, fx);
  const before = dbBytes(path);
  await preload(db, { podId: fx.podId, agents: fx.agents, count: sizes.footprintEvents, tag: "f" });
  const after = dbBytes(path);
  const loaded = await settledRss(db, fx);
  const bytesPerEvent = (after - before) / sizes.footprintEvents;
  log(
    `footprint: RSS idle ${idle.toFixed(1)} MiB, with ${sizes.footprintEvents} pending ${loaded.toFixed(1)} MiB, ${Math.round(bytesPerEvent)} bytes/event`,
  );
  return { idle, loaded, bytesPerEvent, before, after };
}
