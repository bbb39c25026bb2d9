#!/usr/bin/env node
/**
 * Two builds of the kernel, compared on idle long-polls at the same moments:
 *
 *   node bench/ab-idle.mjs --a DIR [--b DIR] [--drivers 2000] [--windows 4] [--wait 25]
 *
 * Each build (`DIR` holds its `bin.js`; `--b` defaults to this package's `dist/`) serves its own SQLite
 * database to `--drivers` drivers of its own, each holding `GET /events?waitSeconds=--wait` with nothing
 * queued and re-polling when it returns (as the bench's idle scenario does). Both fleets run at once, so
 * every window of one wait measures both kernels through the same phase of the machine; this machine's
 * speed moves within minutes, so whole runs one after the other measure that rather than the change.
 * Reported per window and overall: each kernel's CPU (user + system, all threads) in cores, and B ÷ A.
 *
 * A diagnostic for deciding whether a change is worth keeping; it writes no results file and no goal
 * depends on it. Must never leave a process or a temp dir behind (cleaned at exit, also on Ctrl-C).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { cleanupAll, cpuSeconds, installExitHandlers, onCleanup } from "./children.mjs";
import { BASE } from "./drivers.mjs";
import { provision } from "./fixture.mjs";
import { kernelDist, startKernel } from "./kernel-process.mjs";
import { sleep } from "./stats.mjs";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string", default: kernelDist },
    drivers: { type: "string", default: "2000" },
    windows: { type: "string", default: "4" },
    wait: { type: "string", default: "25" },
  },
});
const drivers = Number(values.drivers);
const windows = Number(values.windows);
const waitSeconds = Number(values.wait);
if (!values.a || !(drivers > 0) || !(windows > 0) || !(waitSeconds >= 1 && waitSeconds <= 30)) {
  process.stderr.write("usage: ab-idle.mjs --a DIR [--b DIR] [--drivers N] [--windows N] [--wait 1..30]\n");
  process.exit(2);
}
installExitHandlers();
const state = { stopped: false, polls: 0, errors: 0 };

async function idleDriver(pool, token) {
  while (!state.stopped) {
    try {
      const r = await pool.request({
        method: "GET",
        path: `${BASE}/events?limit=10&waitSeconds=${waitSeconds}`,
        headers: { authorization: `Bearer ${token}` },
      });
      await r.body.dump();
      if (r.statusCode === 200) state.polls++;
      else state.errors++;
    } catch {
      if (!state.stopped) {
        state.errors++;
        await sleep(100);
      }
    }
  }
}

async function setUp(name, dist) {
  const dir = mkdtempSync(join(tmpdir(), `cap-ab-idle-${name}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const db = `sqlite:${join(dir, "kernel.db")}`;
  const fleet = await provision(db, { agents: drivers, prefix: `abidle${name}`, dist });
  const kernel = await startKernel(db, { name: `cap-kernel (${name})`, dist });
  const pool = new Pool(kernel.baseUrl, {
    connections: drivers + 8,
    keepAliveTimeout: 120_000,
    headersTimeout: (waitSeconds + 30) * 1000,
    bodyTimeout: (waitSeconds + 30) * 1000,
  });
  onCleanup(() => pool.destroy());
  return { name, dist, kernel, pool, tokens: fleet.agents.map((a) => a.token), cores: [] };
}

const builds = [await setUp("A", resolve(values.a)), await setUp("B", resolve(values.b))];
// Spread the starts over one wait, alternating builds, so that the re-polls are spread as well.
const loops = [];
const t0 = performance.now();
for (let i = 0; i < drivers; i++) {
  const delay = t0 + (i * waitSeconds * 1000) / drivers - performance.now();
  if (delay > 1) await sleep(delay);
  for (const k of builds) loops.push(idleDriver(k.pool, k.tokens[i]));
}
await sleep(2000);
for (let w = 0; w < windows; w++) {
  const before = builds.map((k) => cpuSeconds(k.kernel.handle.pid));
  const started = performance.now();
  await sleep(waitSeconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  const cores = builds.map((k, i) => (cpuSeconds(k.kernel.handle.pid) - before[i]) / seconds);
  for (const [i, k] of builds.entries()) k.cores.push(cores[i]);
  console.log(
    `window ${w + 1}: A ${cores[0].toFixed(4)} core, B ${cores[1].toFixed(4)} core, B ÷ A ${(cores[1] / cores[0]).toFixed(3)}`,
  );
}
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
for (const k of builds)
  console.log(`${k.name} (${k.dist}): ${mean(k.cores).toFixed(4)} core over ${windows} windows`);
console.log(
  `B ÷ A, kernel CPU: ${(mean(builds[1].cores) / mean(builds[0].cores)).toFixed(3)}; ${state.polls} polls answered, ${state.errors} errors`,
);
state.stopped = true;
await cleanupAll();
process.exit(0);
