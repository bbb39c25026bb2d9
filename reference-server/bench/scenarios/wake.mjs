/**
 * Long-poll wake latency: agent `wake-sleeper` waits in a long-poll; agent `wake-poster` posts a message
 * mentioning it; the figure is the time from the poster receiving its `201` to the sleeper's long-poll
 * returning that `mention.received` — p50/p99 over `sizes.wakeSamples` events, first idle, then while 8
 * drain drivers (in a worker thread, so the probe's event loop stays free) work through a pre-loaded queue
 * on the same kernel.
 *
 * SQLite: one kernel process. PostgreSQL: two replicas on one database; the poster talks to replica 1 and
 * the sleeper waits on replica 2, so every wake-up crosses LISTEN/NOTIFY. Under load, the drain drivers are
 * split over both replicas.
 *
 * The kernel wakes the poll at commit, before the poster's 201 is written, so the poll can finish first:
 * such samples count as 0 ms and their number is reported. The poster waits `parkMs` after sending the
 * long-poll so it is parked in the kernel before the post (otherwise the poll would find the event ready
 * and measure a plain poll, not a wake-up).
 */
import { startDrainLoad } from "../drain-load.mjs";
import { agentClient } from "../drivers.mjs";
import { preload, provision } from "../fixture.mjs";
import { startKernel } from "../kernel-process.mjs";
import { sleep, summarize } from "../stats.mjs";

async function probe({ poster, sleeper, podId, samples, parkMs, timeoutMs }) {
  const latencies = [];
  let early = 0;
  let missed = 0;
  const deadline = performance.now() + timeoutMs;
  for (let i = 0; i < samples && performance.now() < deadline; i++) {
    const polling = sleeper.poll(1, 10);
    await sleep(parkMs);
    const posted = await poster.post(podId, `@wake-sleeper ping ${i}`);
    const polled = await polling;
    const event = polled.body.events[0];
    if (!event || event.payload?.messageId !== posted.body.id) {
      missed++;
      if (event) await sleeper.ack(event.id);
      continue;
    }
    const ms = polled.at - posted.at;
    if (ms < 0) early++;
    latencies.push(Math.max(0, ms));
    await sleeper.ack(event.id);
  }
  return { ...summarize(latencies), early, missed };
}

export async function wake({ sizes, log, newDb }, store, { loadEvents }) {
  const replicas = store === "postgres" ? 2 : 1;
  const db = await newDb(store, "wake");
  const pair = await provision(db, { names: ["wake-poster", "wake-sleeper"], prefix: "wake" });
  const load = await provision(db, { agents: 8, prefix: "wakeload" });
  const [posterFx, sleeperFx] = pair.agents;
  await preload(db, { podId: load.podId, agents: load.agents, count: loadEvents, tag: "w" });
  const kernels = [];
  const clients = [];
  try {
    for (let r = 1; r <= replicas; r++)
      kernels.push(await startKernel(db, { name: `cap-kernel (${store}, wake, replica ${r})` }));
    const via = (k, token) => {
      const c = agentClient(k.baseUrl, token);
      clients.push(c);
      return c;
    };
    const poster = via(kernels[0], posterFx.token);
    const sleeper = via(kernels[replicas - 1], sleeperFx.token);
    const base = {
      poster,
      sleeper,
      podId: pair.podId,
      samples: sizes.wakeSamples,
      parkMs: sizes.parkMs,
      timeoutMs: sizes.wakeTimeoutMs,
    };

    const idle = await probe(base);
    log(`wake ${store} idle: p50 ${idle.p50} ms, p99 ${idle.p99} ms (${idle.count} samples)`);

    const loadRun = startDrainLoad(
      load.agents.map((a, i) => ({ baseUrl: kernels[i % replicas].baseUrl, token: a.token })),
      { deadlineMs: sizes.wakeTimeoutMs + sizes.warmupMs },
    );
    await sleep(sizes.warmupMs);
    const loaded = await probe(base);
    const loadAcked = await loadRun.stop();
    log(
      `wake ${store} under load: p50 ${loaded.p50} ms, p99 ${loaded.p99} ms (${loaded.count} samples, ${loadAcked} load events acked)`,
    );
    return { idle, loaded, loadAcked, loadExhausted: loadAcked >= loadEvents, replicas };
  } finally {
    for (const c of clients) c.close();
    for (const k of kernels) await k.handle.stop();
  }
}
