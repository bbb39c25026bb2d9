#!/usr/bin/env node
// The two README commands. `npm start` and `npm test` must work on a machine that has only Node >= 20,
// so this script brings the pinned pnpm itself (a global one if it is the right version, npx otherwise),
// installs the workspace from the lockfile, then runs the main job or the whole test suite.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareTestServices } from "./test-services.mjs";

const PNPM_VERSION = "12.4.2";
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const mode = process.argv[2] ?? "test";
const extra = process.argv.slice(3);

const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" };
// better-sqlite3 compiles from source here; node-gyp must use the headers that ship with this Node
// instead of downloading them (pnpm ignores `nodedir` in .npmrc, so it goes through the environment).
if (!env.npm_config_nodedir) {
  const prefix = resolve(dirname(process.execPath), "..");
  if (existsSync(join(prefix, "include", "node", "node.h"))) env.npm_config_nodedir = prefix;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, env, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function pnpmCommand() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8", env });
  if (probe.status === 0 && probe.stdout.trim() === PNPM_VERSION) return ["pnpm", []];
  return ["npx", ["-y", `pnpm@${PNPM_VERSION}`]];
}

const [pnpm, pre] = pnpmCommand();
const pn = (...args) => run(pnpm, [...pre, ...args]);

const frozen = existsSync(join(root, "pnpm-lock.yaml")) ? ["--frozen-lockfile"] : [];
if (pn("install", ...frozen) !== 0) process.exit(1);

if (mode === "start") {
  if (
    pn(
      "exec",
      "turbo",
      "run",
      "build",
      "--filter=@commonly/cap-kernel...",
      "--filter=@commonly/cap-docs...",
      "--filter=@commonly/example-echo-ts...",
      "--output-logs=errors-only",
    ) !== 0
  )
    process.exit(1);
  // The demo's echo agent is answered by the SDK's echo example, a real driver in its own process.
  const driver = `"${process.execPath}" "${join(root, "examples", "echo-ts", "dist", "echo.js")}"`;
  process.exit(
    run(process.execPath, [
      join(root, "reference-server", "dist", "bin.js"),
      "demo",
      "--driver",
      driver,
      // A clone has no packed copy of the docs in the console package: serve the site just built.
      "--docs-dir",
      join(root, "docs", "site"),
      ...extra,
    ]),
  );
} else if (mode === "test") {
  if (pn("exec", "biome", "check", ".") !== 0) process.exit(1);
  // Every workspace package's vitest writes a JSON report here; they are summed at the end.
  const packages = ["", "examples"].flatMap((dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, dir, d.name, "package.json")))
      .map((d) => join(dir, d.name)),
  );
  const resultFile = "test-results/vitest.json";
  for (const p of packages) rmSync(join(root, p, resultFile), { force: true });
  const teardown = prepareTestServices(env);
  process.once("SIGINT", () => {
    teardown();
    process.exit(130);
  });
  const status = pn(
    "exec",
    "turbo",
    "run",
    "test",
    "--concurrency=1",
    "--continue",
    ...extra,
    "--",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${resultFile}`,
  );
  teardown();
  // One closing line over every package, so a reader (or CI) sees the whole count at the end.
  const total = { passed: 0, failed: 0, skipped: 0 };
  const failures = [];
  for (const p of packages) {
    const file = join(root, p, resultFile);
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, "utf8"));
    total.passed += r.numPassedTests;
    total.failed += r.numFailedTests;
    total.skipped += r.numPendingTests + r.numTodoTests;
    for (const suite of r.testResults ?? []) {
      for (const t of suite.assertionResults ?? []) {
        if (t.status !== "failed") continue;
        const first = String(t.failureMessages?.[0] ?? "").split("\n")[0];
        failures.push(`  ✗ ${p}/${relative(join(root, p), suite.name)} › ${t.fullName}\n      ${first}`);
      }
    }
  }
  // The failures again, last, so a log that keeps only its tail (CI's) still names them.
  if (failures.length > 0) console.log(`\nfailed tests:\n${failures.join("\n")}`);
  console.log(`\ntests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.exit(status !== 0 ? status : total.failed > 0 ? 1 : 0);
} else {
  console.error(`usage: quickstart.mjs start|test`);
  process.exit(2);
}
