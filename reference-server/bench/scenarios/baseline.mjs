/**
 * The baseline: Fastify hello-world POST requests/s, in its own process, driven by the same load generator
 * and at the same concurrency (8 connections, one request in flight each) as the kernel's 8 drivers.
 * Also records how busy the server and the generator were, so a reader can tell which side was the limit.
 */
import { cpuSeconds, withOthersCpu } from "../children.mjs";
import { startBaseline } from "../kernel-process.mjs";
import { closedLoop } from "../load.mjs";
import { round } from "../stats.mjs";

export async function measureBaseline({ sizes, log }) {
  const { handle, baseUrl } = await startBaseline();
  try {
    const cpu0 = cpuSeconds(handle.pid);
    const self0 = process.cpuUsage();
    const { result: r, others } = await withOthersCpu([handle.pid], () =>
      closedLoop({
        baseUrl,
        method: "POST",
        path: "/hello",
        body: { hello: "bench" },
        connections: 8,
        warmupMs: sizes.warmupMs,
        durationMs: sizes.baselineMs,
      }),
    );
    const wall = (sizes.warmupMs + sizes.baselineMs) / 1000;
    const serverCpu = (cpuSeconds(handle.pid) - cpu0) / wall;
    const self = process.cpuUsage(self0);
    const clientCpu = (self.user + self.system) / 1e6 / wall;
    if (r.errors > 0) throw new Error(`baseline answered ${r.errors} errors`);
    log(
      `baseline: ${Math.round(r.perSecond)} req/s (server ${round(serverCpu * 100)} % of a core, generator ${round(clientCpu * 100)} %, other processes ${round(others * 100)} %)`,
    );
    return { perSecond: r.perSecond, serverCpu, clientCpu, others };
  } finally {
    await handle.stop();
  }
}
