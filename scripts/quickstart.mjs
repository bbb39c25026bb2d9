#!/usr/bin/env node
// The two README commands. `npm start` and `npm test` must work on a machine that has only Node >= 20,
// so this script brings the pinned pnpm itself (a global one if it is the right version, npx otherwise),
// installs the workspace from the lockfile, then runs the main job or the whole test suite.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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
  if (pn("exec", "turbo", "run", "build", "--filter=@commonly/cap-kernel...", "--output-logs=errors-only") !== 0)
    process.exit(1);
  process.exit(run(process.execPath, [join(root, "reference-server", "dist", "bin.js"), "demo", ...extra]));
} else if (mode === "test") {
  if (pn("exec", "biome", "check", ".") !== 0) process.exit(1);
  process.exit(pn("exec", "turbo", "run", "test", "--concurrency=1", ...extra));
} else {
  console.error(`usage: quickstart.mjs start|test`);
  process.exit(2);
}
