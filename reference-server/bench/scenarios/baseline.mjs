/**
 * The baseline: Fastify hello-world POST requests/s, in its own process, driven by the bench's generator
 * (load.mjs) at the same concurrency (8 connections, one request in flight each) as the kernel's 8 drivers.
 * Records how busy the server and the generator were over the measured window: a baseline whose server
 * used under MIN_SERVER_CORES is not a ceiling (the generator or another process was the limit), and the
 * run is then reported invalid instead of as ratios (results.mjs).
 */
import { cpuSeconds, withOthersCpu } from "../children.mjs";
import { startBaseline } from "../kernel-process.mjs";
import { closedLoop } from "../load.mjs";
import { round } from "../stats.mjs";

/** A valid baseline keeps its server at least this busy (cores) over the measured window. */
export const MIN_SERVER_CORES = 0.8;
export const BASELINE_CONNECTIONS = 8;
export const BASELINE_PATH = "/hello";
export const BASELINE_BODY = { hello: "bench" };

/** CPU of the server and of this process between the window's edges, in cores. */
function windowCpu(pid) {
  let start = null;
  let end = null;
  const read = () => ({ t: performance.now(), server: cpuSeconds(pid), self: process.cpuUsage() });
  return {
    onWindow(phase) {
      if (phase === "start") start = read();
      else end = read();
    },
    result() {
      end ??= read();
      const seconds = (end.t - start.t) / 1000;
      const self = process.cpuUsage(start.self);
      const selfEnd = process.cpuUsage(end.self);
      const client = (self.user + self.system - (selfEnd.user + selfEnd.system)) / 1e6;
      return { serverCpu: (end.server - start.server) / seconds, clientCpu: client / seconds };
    },
  };
}

export async function measureBaseline({ sizes, log }) {
  const { handle, baseUrl } = await startBaseline();
  try {
    const cpu = windowCpu(handle.pid);
    const { result: r, others } = await withOthersCpu([handle.pid], () =>
      closedLoop({
        baseUrl,
        method: "POST",
        path: BASELINE_PATH,
        body: BASELINE_BODY,
        connections: BASELINE_CONNECTIONS,
        warmupMs: sizes.warmupMs,
        durationMs: sizes.baselineMs,
        onWindow: cpu.onWindow,
      }),
    );
    const { serverCpu, clientCpu } = cpu.result();
    if (r.errors > 0) throw new Error(`baseline answered ${r.errors} errors`);
    log(
      `baseline: ${Math.round(r.perSecond)} req/s (server ${round(serverCpu * 100)} % of a core, generator ${round(clientCpu * 100)} %, other processes ${round(others * 100)} %)`,
    );
    return { perSecond: r.perSecond, serverCpu, clientCpu, others };
  } finally {
    await handle.stop();
  }
}
