/**
 * Idle long-polls (issue 10, item 3): `sizes.idleDrivers` (2,000) drivers — one agent each, one keep-alive
 * connection each, from one undici Pool per replica — hold `GET /events?waitSeconds=25` with nothing
 * queued and re-poll the moment a poll returns, as real drivers do. Their starts are spread over one wait
 * so the re-polls are spread too (steady state, not a thundering herd).
 *
 * Once every driver is parked and one more whole wait has passed (`idleSettleMs`: the ramp's connections
 * and heap growth are behind): kernel CPU over one whole wait (`idleWindowMs`, 25 s — each driver re-polls
 * once inside it, which is the real price of idling) from /proc/<pid>/stat, the kernel's RSS at the end, and
 * then, while the drivers keep waiting, the wake latency of one more agent (a poster posts a mention, the
 * sleeper's long-poll returns it; time from the poster's 201 to the sleeper's answer, as in wake.mjs).
 *
 * SQLite: one kernel process. PostgreSQL: two replicas on one database, the drivers split between them
 * (as a load balancer would), and the wake-up crosses replicas (poster on 1, sleeper on 2). CPU and RSS
 * are reported per replica (the larger of the two).
 */
import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { rssMiB } from "../children.mjs";
import { BASE } from "../drivers.mjs";
import { provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { sleep, summarize } from "../stats.mjs";

/** [user, system] CPU seconds of a live process, from /proc/<pid>/stat (100 ticks/s). */
export function cpuSplit(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [Number(f[11]) / 100, Number(f[12]) / 100];
}

export function pool(baseUrl, connections, waitSeconds) {
  return new Pool(baseUrl, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 120_000,
    headersTimeout: (waitSeconds + 30) * 1000,
    bodyTimeout: (waitSeconds + 30) * 1000,
  });
}

export async function request(p, method, path, token, body) {
  const started = performance.now();
  const r = await p.request({
    method,
    path: `${BASE}${path}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await r.body.json();
  return { status: r.statusCode, body: json, at: performance.now(), ms: performance.now() - started };
}

/** One idle driver: long-poll, ack anything that arrives (nothing should), repeat until stopped. */
export async function idleDriver(p, token, waitSeconds, state) {
  while (!state.stopped) {
    try {
      const r = await request(p, "GET", `/events?limit=10&waitSeconds=${waitSeconds}`, token);
      if (r.status !== 200) state.errors++;
      else state.polls++;
    } catch (err) {
      if (!state.stopped) {
        state.errors++;
        state.lastError = err.message;
        await sleep(100);
      }
    }
  }
}

async function probe({ postPool, sleepPool, poster, sleeper, podId, samples, parkMs, timeoutMs }) {
  const latencies = [];
  let early = 0;
  let missed = 0;
  const deadline = performance.now() + timeoutMs;
  for (let i = 0; i < samples && performance.now() < deadline; i++) {
    const polling = request(sleepPool, "GET", "/events?limit=1&waitSeconds=10", sleeper.token);
    await sleep(parkMs);
    const posted = await request(
      postPool,
      "POST",
      `/pods/${encodeURIComponent(podId)}/messages`,
      poster.token,
      {
        content: `@idle-sleeper ping ${i}`,
      },
    );
    const polled = await polling;
    const event = polled.body.events?.[0];
    if (posted.status !== 201 || !event || event.payload?.messageId !== posted.body.id) {
      missed++;
      if (event) await request(sleepPool, "POST", `/events/${event.id}/ack`, sleeper.token, {});
      continue;
    }
    const ms = polled.at - posted.at;
    if (ms < 0) early++;
    latencies.push(Math.max(0, ms));
    await request(sleepPool, "POST", `/events/${event.id}/ack`, sleeper.token, {});
  }
  return { ...summarize(latencies), early, missed };
}

export async function idle({ sizes, log, newDb }, store, { cpuProfileDir } = {}) {
  const replicas = store === "postgres" ? 2 : 1;
  const n = sizes.idleDrivers;
  const waitSeconds = sizes.idleWaitSeconds;
  const db = await newDb(store, "idle");
  const started = performance.now();
  const fleet = await provision(db, { agents: n, prefix: "idle" });
  const pair = await provision(db, { names: ["idle-poster", "idle-sleeper"], prefix: "idlewake" });
  log(`idle ${store}: provisioned ${n} agents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const kernels = [];
  const pools = [];
  const state = { stopped: false, polls: 0, errors: 0, lastError: "" };
  const drivers = [];
  try {
    for (let r = 1; r <= replicas; r++)
      kernels.push(
        await startKernel(db, {
          name: `cap-kernel (${store}, idle, replica ${r})`,
          ...(cpuProfileDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${cpuProfileDir}`] } : {}),
        }),
      );
    const perReplica = Math.ceil(n / replicas);
    const fleetPools = kernels.map((k) => pool(k.baseUrl, perReplica + 8, waitSeconds));
    const postPool = pool(kernels[0].baseUrl, 2, waitSeconds);
    const sleepPool = pool(kernels[replicas - 1].baseUrl, 2, waitSeconds);
    pools.push(...fleetPools, postPool, sleepPool);

    // Spread the starts over one wait; then every driver is parked and re-polls are spread as well.
    const spreadMs = waitSeconds * 1000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const at = t0 + (i * spreadMs) / n;
      const delay = at - performance.now();
      if (delay > 1) await sleep(delay);
      drivers.push(idleDriver(fleetPools[i % replicas], fleet.agents[i].token, waitSeconds, state));
    }
    await sleep(500);

    // One whole wait of warm-up: the ramp opened 2,000 connections and grew the heap, and the collections
    // that follow land in the next wait. What the goal prices is holding the drivers, so the CPU window is
    // the wait after that one; the warm-up wait's figure is reported beside it.
    const pids = kernels.map((k) => k.handle.pid);
    const warm0 = pids.map(cpuSplit);
    const warmStart = performance.now();
    await sleep(sizes.idleSettleMs);
    const warmSeconds = (performance.now() - warmStart) / 1000;
    const warmCores = pids.map((pid, i) => {
      const [u, s] = cpuSplit(pid);
      return (u - warm0[i][0] + s - warm0[i][1]) / warmSeconds;
    });

    const cpu0 = pids.map(cpuSplit);
    const self0 = process.cpuUsage();
    const w0 = performance.now();
    await sleep(sizes.idleWindowMs);
    const seconds = (performance.now() - w0) / 1000;
    const split = pids.map((pid, i) => cpuSplit(pid).map((v, j) => (v - cpu0[i][j]) / seconds));
    const cores = split.map(([u, s]) => u + s);
    const self = process.cpuUsage(self0);
    const generatorCores = (self.user + self.system) / 1e6 / seconds;
    const rss = pids.map(rssMiB);
    log(
      `idle ${store}: ${n} drivers parked; kernel CPU ${cores.map((c) => c.toFixed(3)).join(" / ")} core over ${seconds.toFixed(1)} s, ` +
        `RSS ${rss.map((m) => m.toFixed(1)).join(" / ")} MiB, generator ${generatorCores.toFixed(3)} core; ${state.polls} polls returned, ${state.errors} errors`,
    );

    const wake = await probe({
      postPool,
      sleepPool,
      poster: pair.agents[0],
      sleeper: pair.agents[1],
      podId: pair.podId,
      samples: sizes.idleWakeSamples,
      parkMs: sizes.parkMs,
      timeoutMs: Math.max(5000, (waitSeconds - 5) * 1000),
    });
    log(
      `idle ${store}: wake p50 ${wake.p50} ms, p99 ${wake.p99} ms (${wake.count} samples) while ${n} drivers wait`,
    );
    if (state.errors > 0) throw new Error(`${state.errors} idle polls failed (last: ${state.lastError})`);
    return {
      drivers: n,
      waitSeconds,
      replicas,
      seconds,
      cores,
      split,
      warmCores,
      profiled: Boolean(cpuProfileDir),
      rss,
      generatorCores,
      polls: state.polls,
      wake,
      pids,
    };
  } finally {
    state.stopped = true;
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
    await Promise.allSettled(drivers);
    for (const k of kernels) await k.handle.stop(10_000);
  }
}
