/**
 * Throughput, conversational: 8 agents in one pod talk through CAP. Each driver long-polls its events;
 * for each `mention.received` it posts a message mentioning the next agent (`POST …/messages` → the kernel
 * fans out `mention.received`), then acks. `sizes.chains` seed messages per agent keep the ring busy; the
 * population of events stays constant (one acked, one created). Events acked/s over a fixed window after a
 * warm-up.
 */
import { cpuSeconds, withOthersCpu } from "../children.mjs";
import { agentClient, conversationalDriver } from "../drivers.mjs";
import { provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { round } from "../stats.mjs";

export async function conversational({ sizes, log, newDb }, store) {
  const db = await newDb(store, "conversational");
  const fx = await provision(db, { agents: 8, prefix: "conv" });
  const kernel = await startKernel(db, { name: `cap-kernel (${store}, conversational)` });
  const agents = fx.agents.map((a) => agentClient(kernel.baseUrl, a.token));
  try {
    const next = (i) => fx.agents[(i + 1) % fx.agents.length].name;
    for (let c = 0; c < sizes.chains; c++) {
      for (let i = 0; i < agents.length; i++)
        await agents[i].post(fx.podId, `@${next(i)} start of chain ${c}`);
    }
    const requests0 = agents.reduce((n, a) => n + a.requests, 0);
    const cpu0 = cpuSeconds(kernel.handle.pid);
    const self0 = process.cpuUsage();
    const countFrom = performance.now() + sizes.warmupMs;
    const stopAt = countFrom + sizes.conversationalMs;
    const { result: runs, others } = await withOthersCpu([kernel.handle.pid], () =>
      Promise.all(
        agents.map((a, i) => conversationalDriver(a, { podId: fx.podId, next: next(i), countFrom, stopAt })),
      ),
    );
    const counted = runs.reduce((n, r) => n + r.counted, 0);
    const seconds = sizes.conversationalMs / 1000;
    const requests = agents.reduce((n, a) => n + a.requests, 0) - requests0;
    const wall = seconds + sizes.warmupMs / 1000;
    const cpu = (cpuSeconds(kernel.handle.pid) - cpu0) / wall;
    const self = process.cpuUsage(self0);
    const generatorCpu = (self.user + self.system) / 1e6 / wall;
    log(`conversational ${store}: ${Math.round(counted / seconds)} events/s`);
    return {
      eventsPerSecond: counted / seconds,
      notes:
        `${counted} mention events handled (post + ack) in a ${seconds} s window after ${sizes.warmupMs / 1000} s warm-up; ` +
        `${sizes.chains * agents.length} conversations in flight; ${requests} requests in warm-up and window ` +
        `(≈ ${round(requests / wall)} req/s); kernel used ${round(cpu * 100)} % of a core (generator ${round(generatorCpu * 100)} %, other processes ${round(others * 100)} %)`,
    };
  } finally {
    for (const a of agents) a.close();
    await kernel.handle.stop();
  }
}
