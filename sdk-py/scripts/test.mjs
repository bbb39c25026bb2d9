#!/usr/bin/env node
// The test task of sdk-py (turbo runs it from `npm test`): installs the SDK exactly as the README says —
// `python3 -m venv v && v/bin/pip install ./sdk-py`, no flags, no package index — into a fresh venv, then
// runs the unittest suite (tests/run.py) with that venv's Python, so the tests exercise the installed
// package, not the source tree. The counts are written in vitest's JSON shape where `npm test` passes
// `--outputFile.json=…`, so they are in its closing line. Python: /usr/bin/python3 (Debian's, which has
// venv) when present, else python3 on PATH; scripts/test-services.mjs installs python3-venv when missing.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const root = resolve(sdk, "..");
const flag = process.argv.find((a) => a.startsWith("--outputFile.json="));
const report = resolve(sdk, flag ? flag.slice("--outputFile.json=".length) : "test-results/vitest.json");
const filters = process.argv.slice(2).filter((a) => !a.startsWith("--"));

function fail(message) {
  console.error(`sdk-py: ${message}`);
  mkdirSync(dirname(report), { recursive: true });
  const failed = { name: "sdk-py setup", status: "failed", failureMessages: [message] };
  writeFileSync(
    report,
    JSON.stringify({
      numTotalTests: 1,
      numPassedTests: 0,
      numFailedTests: 1,
      numPendingTests: 0,
      numTodoTests: 0,
      success: false,
      testResults: [{ name: "sdk-py", assertionResults: [failed] }],
    }),
  );
  process.exit(1);
}

const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const venvProbe = spawnSync(python, ["-c", "import venv, ensurepip"], { encoding: "utf8" });
if (venvProbe.error || venvProbe.status !== 0)
  fail(`${python} has no venv/ensurepip (Debian: apt-get install -y python3-venv)`);

const work = mkdtempSync(join(tmpdir(), "cap-sdk-py-test-"));
const v = join(work, "v");
const step = (what, cmd, args, options = {}) => {
  console.log(`sdk-py: ${what}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...options });
  if (r.error || r.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    fail(`${what} failed (${r.error?.message ?? `exit ${r.status}`})`);
  }
};
// The README's install command, verbatim but for where the venv lives. The environment takes every
// package source away from pip (no index, no pip.conf, no find-links), so a build backend that needed
// anything from an index would fail here instead of quietly downloading it.
const NO_INDEX = { PIP_NO_INDEX: "1", PIP_CONFIG_FILE: "/dev/null", PIP_DISABLE_PIP_VERSION_CHECK: "1" };
step(`${python} -m venv ${v}`, python, ["-m", "venv", v]);
step(`${v}/bin/pip install ./sdk-py  (no package index)`, join(v, "bin", "pip"), ["install", "./sdk-py"], {
  env: { ...process.env, ...NO_INDEX },
});
const args = [join(sdk, "tests", "run.py"), "--json", report, ...filters.flatMap((f) => ["-k", f])];
const r = spawnSync(join(v, "bin", "python"), args, {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, CAP_TEST_NODE: process.execPath, CAP_TEST_PYTHON: python },
});
rmSync(work, { recursive: true, force: true });
if (r.error) fail(`could not run the tests: ${r.error.message}`);
if (!existsSync(report)) fail(`tests/run.py wrote no report (exit ${r.status})`);
process.exit(r.status ?? 1);
