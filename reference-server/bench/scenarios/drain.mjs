/**
 * Throughput, drain: a queue pre-loaded with `sizes.drainEvents` (50,000) events for 8 agents; 8 drivers,
 * one per agent, each long-polls `limit=50` and acks every event, sequentially on its own connection.
 * Events acked/s and the kernel's HTTP requests/s (polls + acks) over the whole drain, from the first
 * poll to the last ack. One kernel process (SQLite or PostgreSQL).
 *
 * Before the measured drain the same drivers drain `sizes.drainWarmupEvents` more (queued ahead of the
 * measured ones, a whole number of polls per agent), not counted: the baseline is measured after a warm-up,
 * so the kernel's drain is too. Measured cold, the first part of a drain ran before the kernel's hot path
 * was compiled: in a 1.5 s batch-ack drain the kernel used 1.15 cores, its optimising compiler among them.
 *
 * Options: `pending` events pre-loaded (default `sizes.drainEvents`) of which `measure` are drained (default
 * all; the backlog scenario drains the same count from a small and a large queue), `batchAck` (one
 * `POST /events/ack` per poll; the kernel must advertise `batch-ack` in /info, else SkipScenario) and
 * `driver`: `bare` (the bench's drivers), `pollid` (the same, each poll with a fresh `pollId`, as every SDK
 * poll has) or `sdk` (`runDriver` from the SDK with its defaults, sdk-driver.mjs: polls of 10 growing to 50, a
 * batch ack per poll where the kernel has them).
 */
import { cpuSeconds, rssMiB, withOthersCpu } from "../children.mjs";
import { agentClient, drainDriver } from "../drivers.mjs";
import { preload, provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { sdkAgent, sdkMissing } from "../sdk-driver.mjs";
import { round } from "../stats.mjs";

const POLL_LIMIT = 50; // drainDriver's poll size
export const DRIVERS = ["bare", "pollid", "sdk"];

/**
 * The drivers of one drain, one per agent, each with `drain({expected, deadline})` → {acked, lastAckAt},
 * `requests` and `close()`.
 */
export async function drainAgents(kernel, fx, { driver = "bare", batchAck = false } = {}) {
  if (driver === "sdk") return Promise.all(fx.agents.map((a) => sdkAgent(kernel.baseUrl, a.token)));
  const pollIds = driver === "pollid";
  return fx.agents.map((a) => {
    const agent = agentClient(kernel.baseUrl, a.token);
    return {
      info: () => agent.info(),
      drain: (run) => drainDriver(agent, { ...run, batchAck, pollIds }),
      get requests() {
        return agent.requests;
      },
      close: () => agent.close(),
    };
  });
}

/** Thrown when the kernel under test lacks what a scenario needs; run.mjs lists its figures as skipped. */
export class SkipScenario extends Error {}

export async function drain({ sizes, log, newDb }, store, options = {}) {
  const { pending = sizes.drainEvents, batchAck = false, driver = "bare" } = options;
  if (!DRIVERS.includes(driver)) throw new Error(`drain: unknown driver ${driver}`);
  if (driver === "sdk" && sdkMissing()) throw new SkipScenario(sdkMissing());
  const measure = options.measure ?? pending;
  const how = driver === "sdk" ? " (SDK runDriver)" : driver === "pollid" ? " (pollId)" : "";
  const label = `drain${how}${batchAck ? " (batch ack)" : ""} ${store}${measure < pending ? `, ${pending} pending` : ""}`;
  const db = await newDb(store, "drain");
  const fx = await provision(db, { agents: 8, prefix: "drain" });
  const warmup = sizes.drainWarmupEvents;
  if (warmup % (fx.agents.length * POLL_LIMIT) !== 0)
    throw new Error(`drainWarmupEvents must be a multiple of ${fx.agents.length * POLL_LIMIT}`);
  const preloadSeconds =
    (await preload(db, { podId: fx.podId, agents: fx.agents, count: warmup, tag: "w" })) +
    (await preload(db, { podId: fx.podId, agents: fx.agents, count: pending }));
  const kernel = await startKernel(db, { name: `cap-kernel (${label})` });
  // The ack mode: the bench's drivers do as told (batch only where the kernel has it); the SDK's batches
  // wherever /info advertises batch-ack, so its drain compares with the batch drain there.
  const probe = agentClient(kernel.baseUrl, fx.agents[0].token);
  const hasBatch = await probe
    .info()
    .then(({ body }) => body.features?.includes("batch-ack") === true)
    .finally(() => probe.close());
  if (batchAck && !hasBatch) {
    await kernel.handle.stop();
    throw new SkipScenario("kernel lacks batch-ack");
  }
  const ackMode = driver === "sdk" ? (hasBatch ? "batch" : "each") : batchAck ? "batch" : "each";
  const agents = await drainAgents(kernel, fx, { driver, batchAck });
  let peakRss = rssMiB(kernel.handle.pid);
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssMiB(kernel.handle.pid));
    } catch {}
  }, 250);
  try {
    const warmDeadline = performance.now() + sizes.drainTimeoutMs;
    const warm = await Promise.all(
      agents.map((a) => a.drain({ expected: warmup / agents.length, deadline: warmDeadline })),
    );
    const warmPerAgent = warmup / agents.length;
    if (warm.some((r) => r.acked < warmPerAgent || (driver !== "sdk" && r.acked !== warmPerAgent)))
      throw new Error(`drain warm-up: ${warm.map((r) => r.acked).join(", ")} acked per agent`);
    // The SDK sizes its own polls, so its warm-up may have run into the measured events: each agent then
    // drains what is left of its share, and the figure counts what was drained.
    const left = warm.map((r) => warmPerAgent + measure / agents.length - r.acked);
    const requests0 = agents.reduce((n, a) => n + a.requests, 0);
    const cpu0 = cpuSeconds(kernel.handle.pid);
    const self0 = process.cpuUsage();
    const started = performance.now();
    const deadline = started + sizes.drainTimeoutMs;
    const { result: runs, others } = await withOthersCpu([kernel.handle.pid], () =>
      Promise.all(agents.map((a, i) => a.drain({ expected: left[i], deadline }))),
    );
    const ended = Math.max(...runs.map((r) => r.lastAckAt));
    const seconds = (ended - started) / 1000;
    const cpu = (cpuSeconds(kernel.handle.pid) - cpu0) / seconds;
    const self = process.cpuUsage(self0);
    const generatorCpu = (self.user + self.system) / 1e6 / seconds;
    const acked = runs.reduce((n, r) => n + r.acked, 0);
    const requests = agents.reduce((n, a) => n + a.requests, 0) - requests0;
    const complete = acked === left.reduce((n, x) => n + x, 0);
    log(
      `${label}: ${acked} events in ${round(seconds, 2)} s = ${Math.round(acked / seconds)} events/s, ${Math.round(requests / seconds)} req/s`,
    );
    const notes =
      `${acked} of ${left.reduce((n, x) => n + x, 0)} events acked in ${round(seconds, 2)} s after a warm-up drain of ${warmup}` +
      (measure < pending ? ` from a queue of ${pending} pending` : "") +
      (driver === "sdk"
        ? `; SDK runDriver with its defaults (polls sized by the SDK from 10 up, each with a pollId; ${ackMode === "batch" ? "a batch ack per poll" : "one ack per event"})`
        : `${driver === "pollid" ? "; each poll with a fresh pollId" : ""}${batchAck ? "; one batch ack per poll of 50" : "; one ack per event"}`) +
      `${complete ? "" : ` (stopped at the ${sizes.drainTimeoutMs / 1000} s bound)`}; ` +
      `${requests} requests; kernel used ${round(cpu * 100)} % of a core, ${round((cpu * seconds * 1e6) / Math.max(1, acked))} µs of CPU per event (generator ${round(generatorCpu * 100)} %), ` +
      `other processes${store === "postgres" ? " (PostgreSQL among them)" : ""} ${round(others * 100)} %; peak RSS ${round(peakRss, 1)} MiB; ` +
      `pre-load took ${round(preloadSeconds, 1)} s`;
    return {
      eventsPerSecond: acked / seconds,
      requestsPerSecond: requests / seconds,
      notes,
      complete,
      ackMode,
    };
  } finally {
    clearInterval(sampler);
    for (const a of agents) a.close();
    await kernel.handle.stop();
  }
}
