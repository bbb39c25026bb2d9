/**
 * Redelivery latency: a kernel with `--lease-seconds 1`. Each of `sizes.redeliveryAgents` agents claims
 * one event and never acks it; it immediately long-polls again (waitSeconds 5), and the kernel must hand
 * the same event back when the lease ends. The figure is (poll returned) − (leaseExpiresAt of the previous
 * delivery), both on this machine's clock, over `sizes.redeliveryRounds` leases per agent.
 * `--max-attempts` is raised so no event is retired mid-measurement.
 */
import { agentClient } from "../drivers.mjs";
import { preload, provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { summarize } from "../stats.mjs";

export async function redelivery({ sizes, log, newDb }, store) {
  const db = await newDb(store, "redelivery");
  const fx = await provision(db, { agents: sizes.redeliveryAgents, prefix: "lease" });
  await preload(db, { podId: fx.podId, agents: fx.agents, count: fx.agents.length, tag: "r" });
  const kernel = await startKernel(db, {
    leaseSeconds: 1,
    maxAttempts: sizes.redeliveryRounds + 5,
    name: `cap-kernel (${store}, lease 1 s)`,
  });
  const agents = fx.agents.map((a) => agentClient(kernel.baseUrl, a.token));
  // The wall time of monotonic instant `at`, by the offset of now: this machine's wall clock drifts from the
  // monotonic one (tens of milliseconds a minute under load), so a process-start offset goes stale.
  const wall = (at) => at + (Date.now() - performance.now());
  try {
    const latencies = [];
    let wrong = 0;
    await Promise.all(
      agents.map(async (agent) => {
        const first = await agent.poll(1, 0);
        let held = first.body.events[0];
        if (!held) throw new Error("redelivery: the pre-loaded event was not delivered");
        for (let round = 0; round < sizes.redeliveryRounds; round++) {
          const r = await agent.poll(1, 5);
          const again = r.body.events[0];
          if (!again || again.id !== held.id || again.attempts !== held.attempts + 1) {
            wrong++;
            if (!again) continue;
          }
          latencies.push(wall(r.at) - Date.parse(held.leaseExpiresAt));
          held = again;
        }
      }),
    );
    const s = summarize(latencies);
    log(`redelivery ${store}: p50 ${s.p50} ms, p99 ${s.p99} ms (${s.count} samples)`);
    return { ...s, wrong, over50: latencies.filter((v) => v > 50).length };
  } finally {
    for (const a of agents) a.close();
    await kernel.handle.stop();
  }
}
