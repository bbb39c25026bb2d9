/**
 * Every driver this repository ships passes `cap-conformance driver` on 100 % of the MUSTs: the SDK's echo
 * example (runDriver), `commonly agent run` with the stub and the cmd adapters, examples/python and
 * examples/bash-curl — each started by the suite exactly as its README says. A SHOULD a driver does not
 * meet is asserted as a warning here, so it stays visible instead of hidden. Both SDKs' echo drivers (the
 * TypeScript one and the Python one on `run_driver`) pass at the level a published SDK should meet:
 * `--strict`, every check passed, `conformant (MUST + SHOULD)`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readReport, scratch } from "./support/driver.js";
import { runCli } from "./support/run-cli.js";

const root = join(import.meta.dirname, "..", "..");
const nodeBin = `"${process.execPath}"`;
const cli = (adapter: string) => {
  const home = mkdtempSync(join(tmpdir(), "cap-conformance-cli-home-"));
  const cmd = adapter === "cmd" ? "COMMONLY_ADAPTER=cmd COMMONLY_CMD=cat " : "";
  return `COMMONLY_HOME=${home} ${cmd}${nodeBin} ${join(root, "cli", "dist", "bin.js")} agent run conformance-${adapter}`;
};

// runDriver sends a pollId, renews every event it holds, releases what it cannot finish and watches each
// running handler for a cancel (stopping it, posting nothing, acking cancelled): no warning.
// The cmd adapter spawns a process per turn; on a loaded machine the rest of a batch can outlast a
// one-second lease between two renewals (CAP-REL-12).
const sdk: string[] = [];
const spawning = ["CAP-REL-12"];
// A serial stdlib or shell driver renews nothing (CAP-DRV-5; CAP-REL-12 when a batch outlasts a lease on
// a loaded machine), releases nothing when stopped (CAP-REL-11) and watches for no cancel (CAP-CANCEL-16;
// never told of one, it owes nothing to CAP-CANCEL-17 and -18). It names its polls (CAP-REPLAY-7).
const plain = ["CAP-REL-11", "CAP-REL-12", "CAP-DRV-5", "CAP-CANCEL-16"];
// runDriver (and the CLI on it) and run_driver forward each event's trace context: they claim
// trace-context, so driver.trace.* binds them. The plain stdlib and shell drivers do not implement it.
const traced = ["trace-context"];
// name, command, the SHOULDs it may warn about (and nothing else), the features it claims
const drivers: [string, string, string[], string[]][] = [
  ["commonly agent run, stub adapter", cli("stub"), sdk, traced],
  ["commonly agent run, cmd adapter (cat)", cli("cmd"), spawning, traced],
  ["examples/python", `python3 ${join(root, "examples", "python", "echo_driver.py")}`, plain, []],
  ["examples/bash-curl", `bash ${join(root, "examples", "bash-curl", "echo.sh")}`, plain, []],
];

async function expectConformant(command: string, shoulds: string[], claims: string[]) {
  const json = join(scratch(), "report.json");
  const claimed = claims.flatMap((f) => ["--claim", f]);
  const r = await runCli(["driver", "--command", command, ...claimed, "--report", `json=${json}`]);
  expect(r.code, r.stdout).toBe(0);
  const report = readReport(json);
  // A feature the driver does not claim binds it to nothing: its requirements are skipped, never passed.
  const unclaimed = (q: { feature: string | null }) =>
    q.feature === "trace-context" && !claims.includes(q.feature);
  for (const q of report.requirements.filter(unclaimed)) expect(q.status, q.id).toBe("skipped");
  const musts = report.requirements.filter(
    (q) => q.level === "MUST" && q.status !== "not-testable" && !unclaimed(q),
  );
  expect(musts.filter((q) => q.status !== "passed").map((q) => `${q.id} ${q.status}`)).toEqual([]);
  const warned = report.requirements.filter((q) => q.status === "warned").map((q) => q.id);
  expect(warned.filter((id) => !shoulds.includes(id))).toEqual([]);
  expect(report.requirements.filter((q) => q.level === "SHOULD" && q.status === "failed")).toEqual([]);
  for (const f of claims)
    expect(
      report.checks.filter((c) => c.feature === f && c.status !== "passed").map((c) => `${c.id} ${c.status}`),
    ).toEqual([]);
}

// The SDKs' echo drivers, started as their READMEs say (the Python SDK from this checkout, as an install
// of sdk-py would put it on the path).
const sdks: [string, string][] = [
  ["examples/echo-ts (runDriver)", `${nodeBin} ${join(root, "examples", "echo-ts", "dist", "echo.js")}`],
  [
    "examples/python-sdk (run_driver)",
    `PYTHONPATH=${join(root, "sdk-py")} python3 ${join(root, "examples", "python-sdk", "echo.py")}`,
  ],
];

async function expectStrict(command: string, claims: string[]) {
  const json = join(scratch(), "report.json");
  const claimed = claims.flatMap((f) => ["--claim", f]);
  const r = await runCli([
    "driver",
    "--command",
    command,
    ...claimed,
    "--strict",
    "--report",
    `json=${json}`,
  ]);
  expect(r.code, r.stdout).toBe(0);
  const report = readReport(json);
  // Read back, so a check that did not run cannot count as passed.
  expect(report.checks.filter((c) => c.status !== "passed").map((c) => `${c.id}: ${c.status}`)).toEqual([]);
  expect(report.summary).toMatchObject({ level: "MUST + SHOULD", shortOfShould: [] });
  expect(r.stdout).toMatch(/ — conformant \(MUST \+ SHOULD\) \(exit 0\)$/m);
}

// Two runs at a time (vitest maxConcurrency): a run mostly waits out backoffs and leases. Load only makes a
// driver slower, which the deadlines allow for; it cannot make a driver poll sooner or post twice.
describe.concurrent("cap-conformance driver against the shipped drivers", () => {
  it.each(sdks)("%s passes every check, SHOULDs included, under --strict", async (_name, command) => {
    await expectStrict(command, traced);
  });
  it.each(drivers)("%s passes every MUST", async (_name, command, shoulds, claims) => {
    await expectConformant(command, shoulds, claims);
  });
});
