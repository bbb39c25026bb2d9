/**
 * Cancellation (feature `cancel`): how soon a running turn learns of a human's cancel, and what
 * watching for cancels costs while nothing happens.
 *
 * Beside it, as in idle.mjs, `sizes.idleDrivers` (2,000) idle drivers long-poll `GET /events?waitSeconds=25`
 * with nothing queued, their starts spread over one wait, and one more wait passes before anything is
 * measured. Then:
 *
 * 1. Kernel CPU over one idle window with only them (`idleWindowMs`).
 * 2. `sizes.cancelTurns` (100) agents each get one event and an SDK `runDriver` (sdk-turns.mjs) whose
 *    handler holds it: a running turn, renewing its lease and watching its delivery for a cancel. After
 *    `cancelSettleMs`, kernel CPU over `cancelWindowMs` (a whole number of the SDK's 20 s watch waits), and
 *    the SDK's requests in that window by route. The design's price of a running turn (CAP-CANCEL-16: at
 *    most one watch request per 20 s) is judged on the shortest time between two watch requests of one
 *    turn in the window — an "at most" from every turn, which a count over a window that is not an exact
 *    multiple of the watch period could overstate by one request.
 * 3. With both still running, the latency probe: the operator (a human, kernel admin) injects an event for
 *    the `cancel-probe` agent, whose SDK driver takes it; once the handler runs and its watch request has
 *    left, `parkMs` later the human cancels it (`POST /api/pods/{podId}/events/{eventId}/cancel`). The
 *    figure is the time from sending that cancel to the handler's `ctx.signal` aborting — p50/p99 over
 *    `cancelSamples`; each sample waits for the driver's `cancelled` ack before the next.
 *
 * SQLite: one kernel process. PostgreSQL: two replicas on one database, the idle drivers and the running
 * turns split between them; the human's requests go to replica 1 and the probe's driver (poll and watch)
 * to replica 2, so every cancel reaches the watch through LISTEN/NOTIFY. CPU is per replica (the larger).
 */
import { provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { createClient } from "../load.mjs";
import { sdkMissing } from "../sdk-driver.mjs";
import { startSdkTurns } from "../sdk-turns.mjs";
import { sleep, summarize } from "../stats.mjs";
import { SkipScenario } from "./drain.mjs";
import { cpuSplit, idleDriver, pool } from "./idle.mjs";

/** Cores used by each pid over `ms`, from /proc/<pid>/stat before and after. */
async function coresOver(pids, ms) {
  const before = pids.map(cpuSplit);
  const t0 = performance.now();
  await sleep(ms);
  const seconds = (performance.now() - t0) / 1000;
  return {
    seconds,
    cores: pids.map((pid, i) => {
      const [u, s] = cpuSplit(pid);
      return (u - before[i][0] + s - before[i][1]) / seconds;
    }),
  };
}

/** A promise with its resolve, for the probe's hand-offs between the handler and the loop. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves with `promise`'s value, or with `fallback` after `ms`. */
function within(promise, ms, fallback) {
  let timer;
  return Promise.race([
    promise,
    new Promise((r) => {
      timer = setTimeout(() => r(fallback), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The probe: one human cancel at a time of a turn whose watch is parked, timed to the handler's abort.
 * `human`: a client on replica 1 with the operator's token; `turns`: the probe agent's hand-offs.
 */
async function probe({ human, headers, podId, agentName, turns, driver, sizes }) {
  const latencies = [];
  const answered = [];
  let missed = 0;
  let unchanged = 0;
  const deadline = performance.now() + sizes.cancelTimeoutMs;
  for (let i = 0; i < sizes.cancelSamples && performance.now() < deadline; i++) {
    const emitted = await human.request("POST", "/api/admin/events", {
      body: { podId, agentName, type: "task.assigned", payload: { taskId: `c${i}`, title: `turn ${i}` } },
      headers,
    });
    if (emitted.status !== 201)
      throw new Error(`emit answered ${emitted.status}: ${JSON.stringify(emitted.body)}`);
    const id = emitted.body.id;
    const turn = turns.expect(id);
    const ready = await within(
      Promise.all([turn.started.promise, turn.watching.promise]),
      sizes.cancelSampleTimeoutMs,
      null,
    );
    if (!ready) {
      missed++;
      turns.forget(id);
      continue;
    }
    await sleep(sizes.parkMs);
    const acksBefore = driver.counts.ack;
    const sentAt = performance.now();
    const cancelled = await human.request(
      "POST",
      `/api/pods/${encodeURIComponent(podId)}/events/${encodeURIComponent(id)}/cancel`,
      {
        body: {},
        headers,
      },
    );
    if (cancelled.status !== 200)
      throw new Error(`cancel answered ${cancelled.status}: ${JSON.stringify(cancelled.body)}`);
    if (cancelled.body.changed !== true) unchanged++;
    const abortedAt = await within(turn.aborted.promise, sizes.cancelSampleTimeoutMs, null);
    turns.forget(id);
    if (abortedAt === null) {
      missed++;
      continue;
    }
    latencies.push(Math.max(0, abortedAt - sentAt));
    answered.push(cancelled.at - sentAt);
    // The driver acks the cancelled delivery once its handler settled; the next sample starts after it.
    const ackBy = performance.now() + sizes.cancelSampleTimeoutMs;
    while (driver.counts.ack === acksBefore && performance.now() < ackBy) await sleep(5);
  }
  return { ...summarize(latencies), answered: summarize(answered), missed, unchanged };
}

/** What the probe's handler reports, by event id: started, its watch sent, its signal aborted. */
function probeTurns() {
  const byId = new Map();
  const get = (id) => {
    if (!byId.has(id)) byId.set(id, { started: deferred(), watching: deferred(), aborted: deferred() });
    return byId.get(id);
  };
  return {
    expect: get,
    forget: (id) => byId.delete(id),
    onTurn(event, ctx) {
      const turn = get(event.id);
      ctx.signal.addEventListener("abort", () => turn.aborted.resolve(performance.now()), { once: true });
      turn.started.resolve();
    },
    onRequest(kind, url) {
      if (kind !== "watch") return;
      const id = decodeURIComponent(new URL(url).pathname.split("/").at(-2));
      get(id).watching.resolve();
    },
  };
}

export async function cancel({ sizes, log, newDb }, store) {
  const missing = sdkMissing();
  if (missing) throw new SkipScenario(missing);
  const replicas = store === "postgres" ? 2 : 1;
  const n = sizes.idleDrivers;
  const waitSeconds = sizes.idleWaitSeconds;
  const db = await newDb(store, "cancel");
  const started = performance.now();
  const fleet = await provision(db, { agents: n, prefix: "cidle" });
  const running = await provision(db, { agents: sizes.cancelTurns, prefix: "cturn" });
  const probed = await provision(db, { names: ["cancel-probe"], prefix: "cprobe" });
  log(
    `cancel ${store}: provisioned ${n} idle, ${sizes.cancelTurns} running and 1 probe agents in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const kernels = [];
  const pools = [];
  const clients = [];
  const drivers = [];
  const state = { stopped: false, polls: 0, errors: 0, lastError: "" };
  const idle = [];
  try {
    for (let r = 1; r <= replicas; r++)
      kernels.push(await startKernel(db, { name: `cap-kernel (${store}, cancel, replica ${r})` }));
    const pids = kernels.map((k) => k.handle.pid);
    const perReplica = Math.ceil(n / replicas);
    pools.push(...kernels.map((k) => pool(k.baseUrl, perReplica + 8, waitSeconds)));

    // The idle drivers, started over one wait as in idle.mjs, then one whole wait to settle.
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const delay = t0 + (i * waitSeconds * 1000) / n - performance.now();
      if (delay > 1) await sleep(delay);
      idle.push(idleDriver(pools[i % replicas], fleet.agents[i].token, waitSeconds, state));
    }
    await sleep(sizes.idleSettleMs);
    const quiet = await coresOver(pids, sizes.idleWindowMs);
    log(
      `cancel ${store}: ${n} idle drivers, kernel CPU ${quiet.cores.map((c) => c.toFixed(3)).join(" / ")} core`,
    );

    // The running turns: one event each, taken and held by an SDK driver that watches it.
    const held = [];
    const admin = createClient(kernels[0].baseUrl);
    clients.push(admin);
    for (const [i, agent] of running.agents.entries()) {
      const turn = deferred();
      held.push(turn.promise);
      drivers.push(
        await startSdkTurns(kernels[i % replicas].baseUrl, agent.token, { onTurn: () => turn.resolve() }),
      );
      const r = await admin.request("POST", "/api/admin/events", {
        body: {
          podId: running.podId,
          agentName: agent.name,
          type: "task.assigned",
          payload: { taskId: "held", title: "a long turn" },
        },
        headers: { authorization: `Bearer ${running.operator.token}` },
      });
      if (r.status !== 201) throw new Error(`emit answered ${r.status}: ${JSON.stringify(r.body)}`);
    }
    const allHeld = await within(Promise.all(held), sizes.cancelSampleTimeoutMs * 3, null);
    if (!allHeld) throw new Error(`not every one of ${sizes.cancelTurns} running turns started`);
    await sleep(sizes.cancelSettleMs);
    const before = drivers.map((d) => ({ ...d.counts }));
    const self0 = process.cpuUsage();
    const w0 = performance.now();
    const busy = await coresOver(pids, sizes.cancelWindowMs);
    const w1 = performance.now();
    const self = process.cpuUsage(self0);
    const requests = { watch: 0, renew: 0, poll: 0, ack: 0, other: 0 };
    for (const [i, d] of drivers.entries())
      for (const kind of Object.keys(requests)) requests[kind] += d.counts[kind] - before[i][kind];
    const watchesPer20s = (requests.watch / sizes.cancelTurns / busy.seconds) * 20;
    // The shortest gap between two watch requests of one turn, both inside the window (ms; none in a
    // window shorter than the SDK's wait, as in quick mode).
    let shortestGapMs = Number.POSITIVE_INFINITY;
    for (const d of drivers) {
      const inWindow = d.watchTimes.filter((t) => t >= w0 && t <= w1);
      for (let j = 1; j < inWindow.length; j++)
        shortestGapMs = Math.min(shortestGapMs, inWindow[j] - inWindow[j - 1]);
    }
    log(
      `cancel ${store}: + ${sizes.cancelTurns} running turns, kernel CPU ${busy.cores.map((c) => c.toFixed(3)).join(" / ")} core; ` +
        `their requests over ${busy.seconds.toFixed(1)} s: ${Object.entries(requests)
          .map(([k, v]) => `${k} ${v}`)
          .join(
            ", ",
          )} (${watchesPer20s.toFixed(2)} watches per turn per 20 s; shortest gap between two of one turn ${Number.isFinite(shortestGapMs) ? `${(shortestGapMs / 1000).toFixed(3)} s` : "none in the window"})`,
    );

    // The probe: the human on replica 1, the probe's driver on the last replica.
    const turns = probeTurns();
    const probeDriver = await startSdkTurns(kernels[replicas - 1].baseUrl, probed.agents[0].token, turns);
    drivers.push(probeDriver);
    const human = createClient(kernels[0].baseUrl);
    clients.push(human);
    const latency = await probe({
      human,
      headers: { authorization: `Bearer ${probed.operator.token}` },
      podId: probed.podId,
      agentName: probed.agents[0].name,
      turns,
      driver: probeDriver,
      sizes,
    });
    log(
      `cancel ${store}: cancel → abort p50 ${latency.p50} ms, p99 ${latency.p99} ms (${latency.count} samples, ${latency.missed} missed) beside ${n} idle drivers and ${sizes.cancelTurns} running turns`,
    );
    const failures = drivers.flatMap((d) => d.failures);
    if (state.errors > 0) throw new Error(`${state.errors} idle polls failed (last: ${state.lastError})`);
    if (failures.length > 0)
      throw new Error(`${failures.length} SDK driver failures (first: ${failures[0]})`);
    if (latency.count === 0) throw new Error(`no cancel reached its handler (${latency.missed} missed)`);
    return {
      store,
      replicas,
      drivers: n,
      waitSeconds,
      turns: sizes.cancelTurns,
      quiet,
      busy,
      requests,
      watchesPer20s,
      shortestGapMs,
      generatorCores: (self.user + self.system) / 1e6 / busy.seconds,
      latency,
      parkMs: sizes.parkMs,
    };
  } finally {
    state.stopped = true;
    await Promise.allSettled(drivers.map((d) => d.stop()));
    for (const c of clients) c.close();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
    await Promise.allSettled(idle);
    for (const k of kernels) await k.handle.stop(10_000);
  }
}
