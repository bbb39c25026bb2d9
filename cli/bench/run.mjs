/**
 * Spawn overhead per turn, the figure issue 6 asks for, measured two ways (run against dist/; build
 * first: `pnpm exec turbo run build --filter=@commonly/cli...`):
 *
 * 1. adapter.spawn() alone, in-process: stub (no process), cmd via /bin/cat (prompt on stdin), cmd
 *    via `node -e` (prompt in argv).
 * 2. End to end against the reference kernel: `cap-kernel serve` on a fresh SQLite file, the real
 *    `commonly` bin attached and running for each adapter, a human posting through the admin API and
 *    waiting for the reply before the next post. A turn's latency is the reply's createdAt minus the
 *    human message's createdAt — both stamped by the kernel, so polling for the reply does not bias
 *    it. It covers wake-up, claim, GET /memory, the spawn, the post and (after) the ack. The spawn
 *    overhead per turn is the cmd figure minus the stub figure: same loop, same requests, plus one
 *    process.
 *
 *   node bench/run.mjs [turns]     (default 20) prints median and p95, writes bench-results/spawn.json
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getAdapter } from "../dist/index.js";

const turns = Number(process.argv[2] ?? 20);
const here = resolve(import.meta.dirname, "..");
const COMMONLY = join(here, "dist", "bin.js");
const KERNEL = join(here, "..", "reference-server", "dist", "bin.js");
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  return { medianMs: +pct(s, 50).toFixed(2), p95Ms: +pct(s, 95).toFixed(2) };
};
const print = (label, row, unit = "turns") =>
  console.log(
    `${label.padEnd(40)} median ${row.medianMs.toFixed(1).padStart(7)} ms   p95 ${row.p95Ms.toFixed(1).padStart(7)} ms   (${turns} ${unit})`,
  );

// --- 1. adapter.spawn alone -------------------------------------------------------------------
const ctx = {
  sessionId: null,
  cwd: tmpdir(),
  env: process.env,
  memoryLongTerm: "The user likes short answers.",
  metadata: {},
  timeoutMs: 30_000,
};
const inProcess = [
  ["stub", getAdapter("stub")],
  ["cmd: /bin/cat (prompt on stdin)", getAdapter("cmd", { command: "cat" })],
  [
    "cmd: node -e (prompt in argv)",
    getAdapter("cmd", { command: process.execPath, args: ["-e", "console.log('ok')", "{prompt}"] }),
  ],
];
console.log(`node ${process.version}, ${turns} turns per case\n\nadapter.spawn() alone:`);
const spawnResults = [];
for (const [name, adapter] of inProcess) {
  await adapter.spawn("warm-up", ctx);
  const ms = [];
  for (let i = 0; i < turns; i += 1) {
    const t0 = process.hrtime.bigint();
    await adapter.spawn(`lily (human): turn ${i}`, ctx);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const row = { adapter: name, turns, ...stats(ms) };
  spawnResults.push(row);
  print(`  ${name}`, row);
}

// --- 2. end to end through the kernel ---------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), "commonly-bench-"));
const db = `sqlite:${join(dir, "kernel.db")}`;
const env = { ...process.env, COMMONLY_HOME: join(dir, "home"), NO_COLOR: "1" };
const children = [];
const until = async (probe, label, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
const e2eResults = [];
try {
  const prov = JSON.parse(
    execFileSync(process.execPath, [KERNEL, "provision", "--db", db, "--admin", "lily", "--pod", "bench"], {
      encoding: "utf8",
    }),
  );
  const admin = prov.users[0].token;
  const podId = prov.pods[0].id;
  const kernel = spawn(
    process.execPath,
    [KERNEL, "serve", "--db", db, "--port", "0", "--log-level", "warn"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  children.push(kernel);
  let kernelErr = "";
  kernel.stderr.on("data", (c) => {
    kernelErr += c;
  });
  const url = await until(() => /listening on (\S+)/.exec(kernelErr)?.[1], "the kernel");
  const api = async (method, path, body) => {
    const r = await fetch(`${url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const commonly = (args) => execFileSync(process.execPath, [COMMONLY, ...args], { env, encoding: "utf8" });
  commonly(["login", "--url", url, "--token", admin]);

  const cases = [
    ["stub", ["stub"]],
    ["cmd: /bin/cat (prompt on stdin)", ["cmd", "--command", "cat"]],
    [
      "cmd: node -e (prompt in argv)",
      ["cmd", "--command", process.execPath, "--arg=-e", "--arg", "console.log('ok')", "--arg", "{prompt}"],
    ],
  ];
  console.log(`\nend to end, human post → reply in the pod (reference kernel at ${url}):`);
  for (const [i, [label, attachArgs]] of cases.entries()) {
    const name = `bench-${i}`;
    const [cli, ...rest] = attachArgs;
    commonly(["agent", "attach", cli, "--pod", podId, "--name", name, ...rest]);
    const run = spawn(process.execPath, [COMMONLY, "agent", "run", name], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(run);
    let out = "";
    run.stdout.on("data", (c) => {
      out += c;
    });
    await until(() => out.includes("polling for events"), `${name} to start`);
    const ms = [];
    for (let t = -1; t < turns; t += 1) {
      const asked = await api("POST", `/pods/${podId}/messages`, { content: `turn ${t} for ${name}` });
      const reply = await until(async () => {
        const { messages } = await api("GET", `/pods/${podId}/messages?limit=20`);
        return messages.find((m) => m.replyToMessageId === asked.id);
      }, `the reply of ${name}`);
      if (t >= 0) ms.push(Date.parse(reply.createdAt) - Date.parse(asked.createdAt)); // t = -1 warms up
    }
    run.kill("SIGINT");
    await new Promise((r) => run.once("close", r));
    const row = { adapter: label, turns, ...stats(ms) };
    e2eResults.push(row);
    print(`  ${label}`, row);
  }
  const stub = e2eResults[0];
  console.log("\nspawn overhead per turn (end to end, median, cmd minus stub):");
  for (const row of e2eResults.slice(1)) {
    console.log(`  ${row.adapter.padEnd(38)} ${(row.medianMs - stub.medianMs).toFixed(1)} ms`);
  }
} finally {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once("close", r)) : null)),
  );
  rmSync(dir, { recursive: true, force: true });
}

mkdirSync("bench-results", { recursive: true });
writeFileSync(
  "bench-results/spawn.json",
  `${JSON.stringify({ node: process.version, turns, spawn: spawnResults, endToEnd: e2eResults }, null, 2)}\n`,
);
