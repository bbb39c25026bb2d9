/**
 * The least queue (ceiling-server.mjs) drained as the drain scenario drains the kernel: the same 8 bench
 * drivers (poll 50; one ack per event, or one batch ack per poll), the same warm-up and measured counts.
 * What it reaches is the most any kernel could do on that drain on this machine, in this phase: the
 * drains' goals are ratios to it, measured in the same run (figures.mjs, COMPARISONS).
 *
 * `mode`: `each` (one ack per event, each its own statement), `shared` (PostgreSQL: one ack per event,
 * concurrent acks in one statement, as the kernel's ack batcher writes them) or `batch`.
 * Must never leave the server running: it is stopped whatever happens.
 */
import { cpuSeconds, freePort, startChild, waitUntil, withOthersCpu } from "../children.mjs";
import { agentClient, drainDriver } from "../drivers.mjs";
import { round } from "../stats.mjs";

export const CEILING_MODES = { sqlite: ["each", "batch"], postgres: ["each", "shared", "batch"] };
const AGENTS = 8;

export async function ceiling({ sizes, log, newDb }, store, mode) {
  if (!CEILING_MODES[store]?.includes(mode)) throw new Error(`ceiling: no ${mode} mode on ${store}`);
  const warmup = sizes.drainWarmupEvents;
  const measure = sizes.drainEvents;
  const port = await freePort();
  const server = new URL("../ceiling-server.mjs", import.meta.url).pathname;
  const args = [server, String(port), await newDb(store, "ceiling"), String(warmup + measure)];
  if (mode === "shared") args.push("--ack-write", "shared");
  const handle = startChild(`ceiling ${store}-${mode}`, process.execPath, args);
  const agents = [];
  try {
    await waitUntil(`the ceiling server (${store}-${mode})`, () => handle.output().includes("ready"), {
      handle,
      timeoutMs: 120_000,
    });
    for (let i = 0; i < AGENTS; i++) agents.push(agentClient(`http://127.0.0.1:${port}`, `t-${i + 1}`));
    const batchAck = mode === "batch";
    const warmDeadline = performance.now() + sizes.drainTimeoutMs;
    await Promise.all(
      agents.map((a) => drainDriver(a, { expected: warmup / AGENTS, deadline: warmDeadline, batchAck })),
    );
    const cpu0 = cpuSeconds(handle.pid);
    const self0 = process.cpuUsage();
    const started = performance.now();
    const deadline = started + sizes.drainTimeoutMs;
    const { result, others } = await withOthersCpu([handle.pid], () =>
      Promise.all(agents.map((a) => drainDriver(a, { expected: measure / AGENTS, deadline, batchAck }))),
    );
    const seconds = (Math.max(...result.map((r) => r.lastAckAt)) - started) / 1000;
    const acked = result.reduce((n, r) => n + r.acked, 0);
    if (acked !== measure) throw new Error(`ceiling ${store}-${mode}: ${acked} of ${measure} acked`);
    const self = process.cpuUsage(self0);
    const serverCpu = (cpuSeconds(handle.pid) - cpu0) / seconds;
    const generatorCpu = (self.user + self.system) / 1e6 / seconds;
    log(
      `ceiling ${store}-${mode}: ${acked} events in ${round(seconds, 2)} s = ${Math.round(acked / seconds)} events/s`,
    );
    const how = {
      each: "one ack per event",
      shared: "one ack per event, shared writes",
      batch: "one batch ack per poll of 50",
    };
    return {
      eventsPerSecond: acked / seconds,
      serverCpu,
      generatorCpu,
      others,
      notes:
        `the least queue (bench/ceiling-server.mjs), ${how[mode]}: ${acked} events in ${round(seconds, 2)} s after a warm-up drain of ${warmup}; ` +
        `server ${round(serverCpu * 100)} % of a core, generator ${round(generatorCpu * 100)} %, other processes ${round(others * 100)} %`,
    };
  } finally {
    for (const a of agents) a.close();
    await handle.stop();
  }
}
