// What the test suite needs besides Node, set up by `npm test` itself so the README's one test command is
// the whole story on a fresh machine (and `.ci/run` only adds the drift check):
//   - Debian's chromium (page tests) and jq (the bash example), installed with apt-get when running as root;
//   - Debian's python3 with venv (the Python SDK's tests install it into a fresh venv), likewise;
//   - a throwaway PostgreSQL cluster for the PostgreSQL store, replica and conformance tests, unless
//     CAP_TEST_PG_URL already names a server.
// Where something cannot be set up it says so; the tests that need it then fail (browser) or report as
// skipped with the reason (PostgreSQL) — never as passed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const isRoot = process.getuid?.() === 0;
const sh = (cmd) => spawnSync("sh", ["-c", cmd], { encoding: "utf8" });
const which = (name) => {
  const r = sh(`command -v ${name}`);
  return r.status === 0 ? r.stdout.trim() : null;
};

// Debian's python3 without python3-venv has the venv module but cannot put pip into a venv: try for real.
function canMakeVenv(python) {
  const dir = mkdtempSync(join(tmpdir(), "cap-venv-probe-"));
  try {
    return spawnSync(python, ["-m", "venv", join(dir, "v")], { stdio: "ignore" }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let aptUpdated = false;
function aptInstall(packages) {
  if (!isRoot || !which("apt-get")) return false;
  const quiet = {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  };
  if (!aptUpdated) {
    spawnSync("apt-get", ["update", "-qq"], quiet);
    aptUpdated = true;
  }
  console.log(`npm test: installing ${packages.join(", ")} from Debian's packages`);
  return spawnSync("apt-get", ["install", "-y", "-qq", ...packages], quiet).status === 0;
}

/** Prepares `env` for the tests; returns a function that tears down what it started. */
export function prepareTestServices(env) {
  const missing = [];
  if (!env.CAP_TEST_CHROMIUM && !which("chromium")) missing.push("chromium");
  if (!which("jq")) missing.push("jq");
  // The Python SDK's tests make a venv with Debian's python3 (sdk-py/scripts/test.mjs prefers /usr/bin/python3).
  const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : which("python3");
  if (!python) missing.push("python3", "python3-venv");
  else if (!canMakeVenv(python)) missing.push("python3-venv");
  if (missing.length > 0 && !aptInstall(missing))
    console.warn(
      `npm test: ${missing.join(", ")} not found and not installable here (needs root and apt-get); ` +
        `the tests that need them will fail. Install: apt-get install -y ${missing.join(" ")}`,
    );
  if (!env.CAP_TEST_CHROMIUM && which("chromium")) env.CAP_TEST_CHROMIUM = which("chromium");

  if (env.CAP_TEST_PG_URL) return () => {};
  if (!which("pg_createcluster")) aptInstall(["postgresql"]);
  if (!isRoot || !which("pg_createcluster")) {
    console.warn(
      "npm test: no PostgreSQL (CAP_TEST_PG_URL unset, pg_createcluster as root unavailable): the PostgreSQL tests will be reported as skipped",
    );
    return () => {};
  }
  const version = readdirSync("/usr/lib/postgresql")
    .sort((a, b) => Number(a) - Number(b))
    .at(-1);
  const cluster = env.CI_PG_CLUSTER || "cap-test";
  const port = env.CI_PG_PORT || "55432";
  const drop = () => spawnSync("pg_dropcluster", ["--stop", version, cluster], { stdio: "ignore" });
  drop();
  const made = spawnSync(
    "pg_createcluster",
    [version, cluster, "--port", port, "--start", "--", "--auth-local=trust", "--auth-host=trust"],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  if (made.status !== 0) {
    console.warn(
      "npm test: could not start a PostgreSQL cluster; the PostgreSQL tests will be reported as skipped",
    );
    return () => {};
  }
  env.CAP_TEST_PG_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
  console.log(`npm test: PostgreSQL ${version} cluster "${cluster}" on port ${port}`);
  return drop;
}
