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
 * all; the backlog scenario drains the same count from a small and a large queue), and `batchAck` (one
 * `POST /events/ack` per poll; the kernel must advertise `batch-ack` in /info, else SkipScenario).
 */
import { cpuSeconds, rssMiB, withOthersCpu } from "../children.mjs";
import { agentClient, drainDriver } from "../drivers.mjs";
import { preload, provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { round } from "../stats.mjs";

const POLL_LIMIT = 50; // drainDriver's poll size

/** Thrown when the kernel under test lacks what a scenario needs; run.mjs lists its figures as skipped. */
export class SkipScenario extends Error {}

export async function drain({ sizes, log, newDb }, store, options = {}) {
  const { pending = sizes.drainEvents, batchAck = false } = options;
  const measure = options.measure ?? pending;
  const label = `drain${batchAck ? " (batch ack)" : ""} ${store}${measure < pending ? `, ${pending} pending` : ""}`;
  const db = await newDb(store, "drain");
  const fx = await provision(db, { agents: 8, prefix: "drain" });
  const warmup = sizes.drainWarmupEvents;
  if (warmup % (fx.agents.length * POLL_LIMIT) !== 0)
    throw new Error(`drainWarmupEvents must be a multiple of ${fx.agents.length * POLL_LIMIT}`);
  const preloadSeconds =
    (await preload(db, { podId: fx.podId, agents: fx.agents, count: warmup, tag: "w" })) +
    (await preload(db, { podId: fx.podId, agents: fx.agents, count: pending }));
  const kernel = await startKernel(db, { name: `cap-kernel (${label})` });
  const agents = fx.agents.map((a) => agentClient(kernel.baseUrl, a.token));
  if (batchAck) {
    const { body } = await agents[0].info();
    if (!body.features?.includes("batch-ack")) {
      for (const a of agents) a.close();
      await kernel.handle.stop();
      throw new SkipScenario("kernel lacks batch-ack");
    }
  }
  let peakRss = rssMiB(kernel.handle.pid);
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssMiB(kernel.handle.pid));
    } catch {}
  }, 250);
  try {
    const warmDeadline = performance.now() + sizes.drainTimeoutMs;
    const warm = await Promise.all(
      agents.map((a) =>
        drainDriver(a, { expected: warmup / agents.length, deadline: warmDeadline, batchAck }),
      ),
    );
    if (warm.some((r) => r.acked !== warmup / agents.length))
      throw new Error(`drain warm-up: ${warm.map((r) => r.acked).join(", ")} acked per agent`);
    const requests0 = agents.reduce((n, a) => n + a.requests, 0);
    const perAgent = measure / agents.length;
    const cpu0 = cpuSeconds(kernel.handle.pid);
    const self0 = process.cpuUsage();
    const started = performance.now();
    const deadline = started + sizes.drainTimeoutMs;
    const { result: runs, others } = await withOthersCpu([kernel.handle.pid], () =>
      Promise.all(agents.map((a) => drainDriver(a, { expected: perAgent, deadline, batchAck }))),
    );
    const ended = Math.max(...runs.map((r) => r.lastAckAt));
    const seconds = (ended - started) / 1000;
    const cpu = (cpuSeconds(kernel.handle.pid) - cpu0) / seconds;
    const self = process.cpuUsage(self0);
    const generatorCpu = (self.user + self.system) / 1e6 / seconds;
    const acked = runs.reduce((n, r) => n + r.acked, 0);
    const requests = agents.reduce((n, a) => n + a.requests, 0) - requests0;
    const complete = acked === measure;
    log(
      `${label}: ${acked} events in ${round(seconds, 2)} s = ${Math.round(acked / seconds)} events/s, ${Math.round(requests / seconds)} req/s`,
    );
    const notes =
      `${acked} of ${measure} events acked in ${round(seconds, 2)} s after a warm-up drain of ${warmup}` +
      (measure < pending ? ` from a queue of ${pending} pending` : "") +
      (batchAck ? "; one batch ack per poll of 50" : "; one ack per event") +
      `${complete ? "" : ` (stopped at the ${sizes.drainTimeoutMs / 1000} s bound)`}; ` +
      `${requests} requests; kernel used ${round(cpu * 100)} % of a core, ${round((cpu * seconds * 1e6) / Math.max(1, acked))} µs of CPU per event (generator ${round(generatorCpu * 100)} %), ` +
      `other processes${store === "postgres" ? " (PostgreSQL among them)" : ""} ${round(others * 100)} %; peak RSS ${round(peakRss, 1)} MiB; ` +
      `pre-load took ${round(preloadSeconds, 1)} s`;
    return { eventsPerSecond: acked / seconds, requestsPerSecond: requests / seconds, notes, complete };
  } finally {
    clearInterval(sampler);
    for (const a of agents) a.close();
    await kernel.handle.stop();
  }
}
