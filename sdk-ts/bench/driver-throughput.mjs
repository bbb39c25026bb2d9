#!/usr/bin/env node
// Driver-loop throughput: events/s handled by one runDriver with a no-op handler against the
// reference kernel (SQLite file, real sockets), the queue pre-loaded before the driver starts.
// Measures the SDK loop (poll, dedup lookup, dispatch, store, ack) plus the kernel's claim and ack.
// The driver acks through batch ack when the kernel advertises `batch-ack` (the reference kernel
// does); `--single-ack` hides the feature so every ack is its own round trip, as before the verb.
// Usage: pnpm --filter @commonly/cap-sdk bench [-- --events 3000 --limit 50 --runs 3 --single-ack]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CAP_BASE_PATH } from "../dist/generated/constants.js";
import { CapClient, runDriver } from "../dist/index.js";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "3000" },
    limit: { type: "string", default: "50" },
    runs: { type: "string", default: "1" },
    "single-ack": { type: "boolean", default: false },
  },
});
const EVENTS = Number(values.events);
const LIMIT = Number(values.limit);
const RUNS = Number(values.runs);
const SINGLE = values["single-ack"];
const bin = resolve(import.meta.dirname, "..", "..", "reference-server", "dist", "bin.js");
const dir = mkdtempSync(join(tmpdir(), "cap-sdk-bench-"));
const db = `sqlite:${join(dir, "kernel.db")}`;

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

async function until(probe, label, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${label}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const spec = {
  users: [{ name: "bench", admin: true }],
  pods: [{ name: "bench" }],
  agents: [{ name: "bench", pods: ["bench"] }],
};
writeFileSync(join(dir, "spec.json"), JSON.stringify(spec));
const fixture = JSON.parse(
  execFileSync(process.execPath, [bin, "provision", "--db", db, "--file", join(dir, "spec.json")], {
    encoding: "utf8",
  }),
);
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const kernel = spawn(
  process.execPath,
  [bin, "serve", "--db", db, "--port", String(port), "--log-level", "warn"],
  { stdio: "inherit" },
);
try {
  await until(async () => (await fetch(`${url}/readyz`)).ok, "the kernel is ready");
  const admin = fixture.users[0].token;
  const podId = fixture.pods[0].id;
  const emit = async (count) => {
    let next = 0;
    const emitOne = async () => {
      while (next < count) {
        next++;
        const r = await fetch(`${url}/api/admin/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          body: JSON.stringify({
            agentName: "bench",
            podId,
            type: "task.assigned",
            payload: { taskId: String(next), title: "bench" },
          }),
        });
        if (r.status !== 201) throw new Error(`emit answered ${r.status}: ${await r.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, emitOne));
  };

  const requests = new Map();
  const client = new CapClient({
    baseUrl: url,
    token: fixture.agents[0].token,
    fetch: (request) => {
      const path = new URL(request.url).pathname.replace(/\/events\/(?!ack$)[^/]+\//, "/events/{id}/");
      const key = `${request.method} ${path.replace(CAP_BASE_PATH, "")}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
      return fetch(request);
    },
  });
  const info = await client.info();
  if (SINGLE) {
    const real = client.info.bind(client);
    client.info = async (...args) => {
      const answer = await real(...args);
      return { ...answer, features: answer.features.filter((f) => f !== "batch-ack") };
    };
  }
  const ackMode = SINGLE || !info.features.includes("batch-ack") ? "per-event ack" : "batch ack";
  const rates = [];
  for (let run = 1; run <= RUNS; run++) {
    await emit(EVENTS);
    requests.clear();
    const stop = new AbortController();
    let acked = 0;
    const started = performance.now();
    let finished = started;
    const summary = await runDriver({
      client,
      signal: stop.signal,
      limit: LIMIT,
      handle: () => {},
      onAck: () => {
        if (++acked === EVENTS) {
          finished = performance.now();
          stop.abort();
        }
      },
      onError: ({ stage, error }) => console.error(`driver ${stage} error: ${error}`),
    });
    const seconds = (finished - started) / 1000;
    const rate = Math.round(EVENTS / seconds);
    rates.push(rate);
    console.log(
      `driver-throughput run ${run}/${RUNS}: ${EVENTS} events in ${seconds.toFixed(2)} s = ${rate} events/s ` +
        `(one runDriver, no-op handler, limit ${LIMIT}, ${ackMode}, ${summary.polls} polls, ` +
        `SQLite reference kernel, Node ${process.version}); requests: ` +
        [...requests].map(([k, n]) => `${k} ×${n}`).join(", "),
    );
  }
  // The figure counts only if the kernel agrees: nothing left to claim, the newest 1000 all acked.
  const left = (await client.poll({ limit: 50 })).events.length;
  const queue = await (
    await fetch(`${url}/api/admin/pods/${podId}/queue?limit=1000`, {
      headers: { authorization: `Bearer ${admin}` },
    })
  ).json();
  const states = queue.agents.flatMap((a) => a.events.map((e) => e.state));
  const unacked = states.filter((state) => state !== "acked").length;
  if (left > 0 || unacked > 0 || states.length === 0)
    throw new Error(`the kernel disagrees: ${left} events left to poll, ${unacked} of the newest not acked`);
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(
    `driver-throughput: median ${sorted[Math.floor(sorted.length / 2)]} events/s, best ${sorted.at(-1)} ` +
      `(${RUNS} run(s) of ${EVENTS}, ${ackMode})`,
  );
  console.log(
    `command: pnpm --filter @commonly/cap-sdk bench -- --events ${EVENTS} --limit ${LIMIT} --runs ${RUNS}` +
      (SINGLE ? " --single-ack" : ""),
  );
} finally {
  kernel.kill("SIGTERM");
  await new Promise((r) => kernel.once("exit", r));
  rmSync(dir, { recursive: true, force: true });
}
