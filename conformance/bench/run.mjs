#!/usr/bin/env node
// Benchmark: the whole conformance suite against the reference kernel with a 1-second lease, wall time
// (goal: under 30 s), then the whole driver suite (`cap-conformance driver`) against the SDK's echo example
// (goal: at most 60 s). Run: pnpm --filter @commonly/cap-conformance bench  (or: node conformance/bench/run.mjs)
// Kernel part: starts `cap-kernel serve` on a fresh SQLite file, provisions the fixture with the store-outage
// hook (the kit's storeOutageSwitch: this process takes the file's write lock), runs the built CLI.
// Driver part: CAP_BENCH_DRIVER_COMMAND overrides the driver (default: node examples/echo-ts/dist/echo.js);
// CAP_BENCH_ONLY=kernel|driver runs one part. Prints wall times and the exact commands. A benchmark, not a
// test: it reports, it does not assert the goals.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { storeOutageSwitch } from "@commonly/cap-kernel/testing";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "dist", "bin.js");
const kernelBin = join(
  dirname(createRequire(import.meta.url).resolve("@commonly/cap-kernel/package.json")),
  "dist",
  "bin.js",
);
const lease = Number(process.env.CAP_BENCH_LEASE_SECONDS ?? 1);
const part = process.env.CAP_BENCH_ONLY ?? "all";
const rel = (p) => relative(process.cwd(), p) || p;
const runCli = (args) =>
  new Promise((resolve) => {
    spawn(process.execPath, [cli, ...args], { stdio: "inherit" }).on("exit", (c) => resolve(c ?? 1));
  });
const lines = [""];
let worst = 0;

async function driverBench() {
  const echo = join(here, "..", "..", "examples", "echo-ts", "dist", "echo.js");
  const command = process.env.CAP_BENCH_DRIVER_COMMAND ?? `"${process.execPath}" "${echo}"`;
  const args = ["driver", "--command", command, "--lease-seconds", String(lease)];
  const t0 = performance.now();
  const code = await runCli(args);
  const seconds = (performance.now() - t0) / 1000;
  worst = Math.max(worst, code);
  lines.push(
    `cap-conformance driver bench: wall time ${seconds.toFixed(1)} s (goal ≤ 60 s), exit code ${code}`,
    `  suite:  node ${rel(cli)} ${args.map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(" ")}`,
  );
}

if (part === "driver") {
  await driverBench();
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exit(worst);
}
const maxAttempts = Number(process.env.CAP_BENCH_MAX_ATTEMPTS ?? 3);

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const dir = mkdtempSync(join(tmpdir(), "cap-conformance-bench-"));
const db = `sqlite:${join(dir, "kernel.db")}`;
const url = `http://127.0.0.1:${port}`;
const common = ["--db", db, "--lease-seconds", String(lease), "--max-attempts", String(maxAttempts)];
const serveArgs = ["serve", "--port", String(port), "--log-level", "warn", ...common];
const outage = await storeOutageSwitch(db);
// A locked file answers 503 after 250 ms instead of 5 s (the outage checks wait for each refusal).
const kernel = spawn(process.execPath, [kernelBin, ...serveArgs], {
  stdio: ["ignore", "ignore", "inherit"],
  env: { ...process.env, CAP_SQLITE_BUSY_TIMEOUT_MS: "250" },
});
try {
  for (let i = 0; ; i++) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 400) throw new Error("cap-kernel did not become ready");
    await new Promise((r) => setTimeout(r, 50));
  }
  const fixture = join(dir, "fixture.json");
  const provisioned = JSON.parse(
    execFileSync(
      process.execPath,
      [kernelBin, "provision", "--for-conformance", "--base-url", url, ...common],
      {
        encoding: "utf8",
      },
    ),
  );
  writeFileSync(fixture, JSON.stringify({ ...provisioned, storeOutage: outage.commands }, null, 2));
  // The reference kernel's known failures (this file can only shrink; see test/).
  const baseline = join(here, "..", "test", "reference-kernel.expected-failures.yaml");
  const runArgs = ["run", "--fixture", fixture, "--baseline", baseline, ...process.argv.slice(2)];
  const t0 = performance.now();
  const code = await runCli(runArgs);
  const seconds = (performance.now() - t0) / 1000;
  worst = Math.max(worst, code);
  lines.push(
    `cap-conformance bench: wall time ${seconds.toFixed(1)} s (goal < 30 s), exit code ${code}`,
    `  kernel: node ${rel(kernelBin)} ${serveArgs.join(" ")}`,
    `  suite:  node ${rel(cli)} ${runArgs.join(" ")}`,
  );
} finally {
  kernel.kill("SIGTERM");
  await outage.close();
}
if (part !== "kernel") await driverBench();
process.stdout.write(`${lines.join("\n")}\n`);
process.exitCode = worst;
