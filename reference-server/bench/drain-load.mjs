/**
 * Background drain load for the latency probes, in a worker thread: 8 drain drivers keep the kernel busy
 * while the probe measures. It runs on its own event loop so the probe's timestamps are not delayed by the
 * load's response handling. Stops on a "stop" message (or at its deadline) and posts {acked}.
 * Must never outlive the probe: the deadline bounds it even if "stop" never comes.
 */
import { parentPort, Worker, workerData } from "node:worker_threads";
import { agentClient, drainDriver } from "./drivers.mjs";

/** Starts the load: `targets` is [{baseUrl, token}], one driver each. Returns {stop(): Promise<acked>}. */
export function startDrainLoad(targets, { deadlineMs }) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { targets, deadlineMs } });
  const done = new Promise((resolve, reject) => {
    worker.once("message", (m) => resolve(m.acked));
    worker.once("error", reject);
  });
  return {
    async stop() {
      worker.postMessage("stop");
      const acked = await done;
      await worker.terminate();
      return acked;
    },
  };
}

if (parentPort && workerData?.targets) {
  let stop = false;
  parentPort.on("message", (m) => {
    if (m === "stop") stop = true;
  });
  const deadline = performance.now() + workerData.deadlineMs;
  const agents = workerData.targets.map((t) => agentClient(t.baseUrl, t.token));
  const runs = await Promise.all(
    agents.map((a) =>
      drainDriver(a, { expected: Number.POSITIVE_INFINITY, deadline, shouldStop: () => stop }),
    ),
  );
  for (const a of agents) a.close();
  parentPort.postMessage({ acked: runs.reduce((n, r) => n + r.acked, 0) });
}
