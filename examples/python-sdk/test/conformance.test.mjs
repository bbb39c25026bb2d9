/**
 * The proof: `cap-conformance driver` plays the kernel (faults, outages, revoked tokens, bursts) and
 * judges examples/python-sdk/echo.py, started per scenario in a venv where the SDK was installed with the
 * README's command. Every check must pass, SHOULDs included (--strict); the JSON report is read back so a
 * check that did not run cannot count as a pass.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const work = mkdtempSync(join(tmpdir(), "cap-example-python-sdk-conformance-"));
const bin = join(root, "conformance", "dist", "bin.js");

beforeAll(() => {
  execFileSync(python, ["-m", "venv", join(work, "v")], { cwd: root, stdio: "inherit" });
  const noIndex = { PIP_NO_INDEX: "1", PIP_CONFIG_FILE: "/dev/null", PIP_DISABLE_PIP_VERSION_CHECK: "1" };
  execFileSync(join(work, "v", "bin", "pip"), ["install", "./sdk-py"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...noIndex },
  });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("cap-conformance driver against examples/python-sdk/echo.py", () => {
  it("passes every driver check, SHOULDs included", () => {
    const report = join(work, "report.json");
    const command = `"${join(work, "v", "bin", "python")}" "${join(root, "examples", "python-sdk", "echo.py")}"`;
    const run = spawnSync(
      process.execPath,
      // run_driver forwards each event's trace context: the example claims trace-context.
      [
        bin,
        "driver",
        "--command",
        command,
        "--claim",
        "trace-context",
        "--level",
        "should",
        "--strict",
        "--report",
        `json=${report}`,
      ],
      { cwd: root, encoding: "utf8", timeout: 280_000 },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const { summary, checks } = JSON.parse(readFileSync(report, "utf8"));
    expect(summary.checks).toBeGreaterThanOrEqual(12);
    expect(checks.filter((c) => c.status !== "passed").map((c) => `${c.id}: ${c.status}`)).toEqual([]);
    expect(summary).toMatchObject({ passed: summary.checks, verdict: "conformant" });
  }, 300_000);
});
