/**
 * Spawn overhead per turn, the figure issue 6 asks for: how long one adapter.spawn() takes when the
 * wrapped "CLI" does no work, for the stub adapter (no process) and the cmd adapter (a real
 * process: /bin/cat answering from stdin, and a Node script). Runs against dist/ (build first).
 *
 *   node bench/run.mjs [turns]     prints median and p95 per adapter, writes bench-results/spawn.json
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { getAdapter } from "../dist/index.js";

const turns = Number(process.argv[2] ?? 50);
const ctx = {
  sessionId: null,
  cwd: tmpdir(),
  env: process.env,
  memoryLongTerm: "The user likes short answers.",
  metadata: {},
  timeoutMs: 30_000,
};

const cases = [
  ["stub", getAdapter("stub")],
  ["cmd: /bin/cat (prompt on stdin)", getAdapter("cmd", { command: "cat" })],
  [
    "cmd: node -e (prompt in argv)",
    getAdapter("cmd", { command: process.execPath, args: ["-e", "console.log('ok')", "{prompt}"] }),
  ],
];

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const results = [];
for (const [name, adapter] of cases) {
  await adapter.spawn("warm-up", ctx);
  const ms = [];
  for (let i = 0; i < turns; i += 1) {
    const t0 = process.hrtime.bigint();
    await adapter.spawn(`lily (human): turn ${i}`, ctx);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const row = { adapter: name, turns, medianMs: +pct(ms, 50).toFixed(2), p95Ms: +pct(ms, 95).toFixed(2) };
  results.push(row);
  console.log(
    `${name.padEnd(34)} median ${row.medianMs.toFixed(2)} ms   p95 ${row.p95Ms.toFixed(2)} ms   (${turns} turns)`,
  );
}
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/spawn.json", `${JSON.stringify({ node: process.version, results }, null, 2)}\n`);
