#!/usr/bin/env node
/**
 * Two builds of the kernel, compared on the drain in one phase of the machine:
 *
 *   node bench/ab-drain.mjs --a DIR [--b DIR] [--ack batch|each] [--store sqlite|postgres] [--driver bare|pollid|sdk]
 *                           [--a-driver bare|pollid|sdk] [--a-plain] [--b-traced] [--slice 4000] [--slices 12]
 *
 * Each build (`DIR` holds its `bin.js`, as `dist/` does; `--b` defaults to this package's `dist/`) serves its
 * own database (SQLite by default; with `--store postgres`, a database of its own on the bench's PostgreSQL,
 * postgres.mjs) with the bench's drain queue (8 agents, the same pre-loaded events), both kernels run
 * at once, and the same 8 drivers drain `--slice` events from A, then from B, then from B, then from A, and
 * so on for `--slices` rounds, each kernel warm from the first slice. `--driver`: the bench's drivers
 * (`bare`), the same with a fresh `pollId` on every poll (`pollid`), or the SDK's `runDriver` with its
 * defaults (`sdk`, which batches its acks where /info has batch-ack; `--ack` is then ignored).
 * `--a-driver` drives A another way than B: with `--a` and `--b` one build, it compares two paths.
 * `--a-plain` serves A without accelerators (CAP_ACCELERATE=0): with one build, what they are worth.
 * `--b-traced` serves B with OpenTelemetry tracing on (OTLP http/protobuf, the SDK's default batching) to a
 * collector stand-in of its own process (otlp-sink.mjs): with one build, what tracing costs.
 * This machine's speed moves by a third within minutes; whole runs of one build after the other measured
 * that, not the change. Slices a few seconds long, alternated, put both builds through the same phases.
 * Reported: events/s of each over its slices, its CPU per event (all threads, and the main thread alone),
 * and B's rate over A's.
 *
 * A diagnostic for deciding whether a change is worth keeping; it writes no results file and no goal
 * depends on it. Must never leave a process or a temp dir behind (cleaned at exit, also on Ctrl-C).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  cleanupAll,
  cpuSeconds,
  freePort,
  installExitHandlers,
  onCleanup,
  startChild,
  waitUntil,
} from "./children.mjs";
import { preload, provision } from "./fixture.mjs";
import { kernelDist, startKernel } from "./kernel-process.mjs";
import { createDatabase, findPostgres } from "./postgres.mjs";
import { DRIVERS, drainAgents } from "./scenarios/drain.mjs";
import { sdkMissing } from "./sdk-driver.mjs";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string", default: kernelDist },
    ack: { type: "string", default: "batch" },
    store: { type: "string", default: "sqlite" },
    driver: { type: "string", default: "bare" },
    "a-driver": { type: "string" },
    "a-plain": { type: "boolean", default: false },
    "b-traced": { type: "boolean", default: false },
    slice: { type: "string", default: "4000" },
    slices: { type: "string", default: "12" },
  },
});
const slice = Number(values.slice);
const slices = Number(values.slices);
if (
  !values.a ||
  !["batch", "each"].includes(values.ack) ||
  !["sqlite", "postgres"].includes(values.store) ||
  !DRIVERS.includes(values.driver) ||
  !DRIVERS.includes(values["a-driver"] ?? values.driver) ||
  !(slice > 0 && slice % 80 === 0) ||
  !(slices > 0)
) {
  process.stderr.write(
    "usage: ab-drain.mjs --a DIR [--b DIR] [--ack batch|each] [--store sqlite|postgres] [--driver bare|pollid|sdk] [--a-driver bare|pollid|sdk] [--a-plain] [--b-traced] [--slice N, a multiple of 80] [--slices N]\n",
  );
  process.exit(2);
}
const driverOf = { A: values["a-driver"] ?? values.driver, B: values.driver };
if (Object.values(driverOf).includes("sdk") && sdkMissing()) {
  process.stderr.write(`${sdkMissing()}\n`);
  process.exit(2);
}
installExitHandlers();
const batchAck = values.ack === "batch";
const WARMUP = 8 * 250;
const postgres = values.store === "postgres" ? await findPostgres() : null;
if (postgres?.skipped) {
  process.stderr.write(`${postgres.skipped}\n`);
  await cleanupAll();
  process.exit(2);
}

/** CPU seconds of the process's main thread (its first task), from /proc. */
function mainThreadSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function setUp(name, dist) {
  const dir = mkdtempSync(join(tmpdir(), `cap-ab-${name}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const db = postgres ? await createDatabase(postgres.adminUrl) : `sqlite:${join(dir, "kernel.db")}`;
  const fx = await provision(db, { agents: 8, prefix: "ab", dist });
  await preload(db, { podId: fx.podId, agents: fx.agents, count: WARMUP + slice * slices, dist });
  const env =
    name === "A" && values["a-plain"]
      ? { CAP_ACCELERATE: "0" }
      : name === "B" && sink
        ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: "cap-kernel-bench" }
        : {};
  const kernel = await startKernel(db, { name: `cap-kernel (${name})`, dist, env });
  const agents = await drainAgents(kernel, fx, { driver: driverOf[name], batchAck });
  const deadline = performance.now() + 60_000;
  await Promise.all(agents.map((a) => a.drain({ expected: WARMUP / 8, deadline })));
  return { name, dist, kernel, agents, seconds: 0, cpu: 0, main: 0, events: 0 };
}

/** The collector stand-in B exports to (--b-traced), in a process of its own. */
async function startSink() {
  const port = await freePort();
  const handle = startChild("otlp-sink", process.execPath, [
    join(import.meta.dirname, "otlp-sink.mjs"),
    String(port),
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitUntil("otlp-sink /stats", async () => (await fetch(`${url}/stats`).catch(() => null))?.ok, {
    handle,
  });
  return { url, stats: async () => (await fetch(`${url}/stats`)).json() };
}
const sink = values["b-traced"] ? await startSink() : null;

const builds = [await setUp("A", resolve(values.a)), await setUp("B", resolve(values.b))];
for (let i = 0; i < slices; i++) {
  for (const k of i % 2 === 0 ? builds : [...builds].reverse()) {
    const { pid } = k.kernel.handle;
    const cpu0 = cpuSeconds(pid);
    const main0 = mainThreadSeconds(pid);
    const started = performance.now();
    const deadline = started + 60_000;
    const runs = await Promise.all(k.agents.map((a) => a.drain({ expected: slice / 8, deadline })));
    k.seconds += (Math.max(...runs.map((r) => r.lastAckAt)) - started) / 1000;
    k.cpu += cpuSeconds(pid) - cpu0;
    k.main += mainThreadSeconds(pid) - main0;
    k.events += runs.reduce((n, r) => n + r.acked, 0);
  }
}
for (const k of builds) {
  const us = (s) => ((s * 1e6) / k.events).toFixed(1);
  console.log(
    `${k.name} (${k.dist}): ${k.events} events, ${Math.round(k.events / k.seconds)} events/s, ` +
      `${us(k.cpu)} µs of CPU per event (main thread ${us(k.main)})`,
  );
}
const [a, b] = builds;
console.log(
  `B ÷ A, events/s: ${(b.events / b.seconds / (a.events / a.seconds)).toFixed(3)} (driver ${driverOf.A === driverOf.B ? driverOf.B : `A ${driverOf.A}, B ${driverOf.B}`}, ack ${values.ack}${Object.values(driverOf).includes("sdk") ? " (the SDK: its own)" : ""}, ${values.store}${values["a-plain"] ? ", A without accelerators" : ""}${sink ? ", B tracing" : ""})`,
);
for (const k of builds) for (const agent of k.agents) agent.close();
if (sink) {
  // B's graceful stop flushes what its batch processor still holds.
  await b.kernel.handle.stop(30_000);
  const { requests, bytes } = await sink.stats();
  console.log(`B's OTLP exports: ${requests} requests, ${(bytes / 1e6).toFixed(1)} MB of spans`);
}
await cleanupAll();
