/**
 * The trace family as data and against drivers: every CAP-TRACE requirement is cited by a check gated on
 * `trace-context` (kernel ids by `trace.*`, driver ids by `driver.trace.*`); the driver scenario runs only
 * for a driver run with `--claim trace-context`, passes the control driver (its own span id) and one that
 * forwards the event's context as it is, and fails the broken ones naming the id each breaks.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allChecks } from "../src/checks/index.js";
import { driverChecks } from "../src/driver/scenarios/index.js";
import { loadManifest } from "../src/requirements.js";
import type { RunReport } from "../src/runner/results.js";
import { readReport, scratch } from "./support/driver.js";
import { runCli } from "./support/run-cli.js";

const manifest = await loadManifest();
const trace = manifest.requirements.filter((r) => r.id.startsWith("CAP-TRACE-"));
const dir = join(import.meta.dirname, "broken-drivers");
const node = (file: string) => `"${process.execPath}" "${join(dir, file)}"`;
const only = ["--only", "driver.trace.*"];
const claim = ["--claim", "trace-context"];

const failedIds = (r: RunReport) => [
  ...new Set(
    r.checks.flatMap((c) => c.failures.filter((f) => f.severity === "fail").map((f) => f.requirement)),
  ),
];
const statusOf = (r: RunReport, id: string) => r.requirements.find((q) => q.id === id)?.status;

async function driverRun(file: string, ...extra: string[]) {
  const json = join(scratch(), "report.json");
  const cli = await runCli([
    "driver",
    "--command",
    node(file),
    ...only,
    ...extra,
    "--report",
    `json=${json}`,
  ]);
  return { cli, report: readReport(json) };
}

describe("the trace family and the requirements manifest", () => {
  it("cites every CAP-TRACE kernel id in a trace check gated on trace-context", () => {
    const kernel = trace.filter((r) => r.subject === "kernel").map((r) => r.id);
    expect(kernel).toHaveLength(8);
    const cited = allChecks.filter((c) => c.family === "trace" && c.feature === "trace-context");
    expect(kernel.filter((id) => !cited.some((c) => c.verifies.includes(id)))).toEqual([]);
    expect(allChecks.filter((c) => c.family === "trace" && c.feature !== "trace-context")).toEqual([]);
  });

  it("cites every CAP-TRACE driver id in a driver scenario gated on trace-context", () => {
    const driver = trace.filter((r) => r.subject === "driver").map((r) => r.id);
    expect(driver).toEqual(["CAP-TRACE-9", "CAP-TRACE-10", "CAP-TRACE-11"]);
    const cited = driverChecks.filter((c) => c.feature === "trace-context");
    expect(driver.filter((id) => !cited.some((c) => c.verifies.includes(id)))).toEqual([]);
  });

  it("gates every driver scenario that verifies a feature's requirement on that feature or on none", () => {
    const wrong = driverChecks.flatMap((c) =>
      c.verifies
        .map((id) => manifest.byId.get(id))
        .filter((r) => c.feature !== undefined && r?.feature !== c.feature)
        .map((r) => `${c.id} (feature ${c.feature}) verifies ${r?.id} (feature ${r?.feature})`),
    );
    expect(wrong).toEqual([]);
  });
});

describe("cap-conformance driver and trace-context", () => {
  it("skips driver.trace.* for a driver that does not claim trace-context, saying why", async () => {
    const { cli, report } = await driverRun("driver.mjs");
    const checks = report.checks.filter((c) => c.id.startsWith("driver.trace."));
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((c) => c.status !== "skipped")).toEqual([]);
    expect(checks.every((c) => /does not claim "trace-context"/.test(c.reason ?? ""))).toBe(true);
    expect(report.target.claimed).toEqual([]);
    expect(cli.code, cli.stdout).toBe(0);
  });

  it("refuses to claim a feature the spec does not define", async () => {
    const cli = await runCli(["driver", "--command", node("driver.mjs"), "--claim", "telepathy"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('unknown feature "telepathy"');
  });

  it("passes the control driver, which sends a span id of its own on every request for the event", async () => {
    const { cli, report } = await driverRun("driver.mjs", ...claim);
    expect(cli.code, cli.stdout).toBe(0);
    expect(report.target.claimed).toEqual(["trace-context"]);
    for (const id of ["CAP-TRACE-9", "CAP-TRACE-10", "CAP-TRACE-11"])
      expect(statusOf(report, id), `${id}\n${cli.stdout}`).toBe("passed");
    const notes = report.checks.flatMap((c) => c.notes);
    expect(notes.filter((n) => /records no spans/.test(n))).toEqual([]);
    // The held reply kept the handler working: its renewals, watch, reply and ack were all judged.
    expect(notes.join("\n")).toMatch(/judged the \d+ requests made for \S+: .*renew ×\d/);
    for (const kind of ["cancel-watch", "post", "ack"]) expect(notes.join("\n")).toContain(`${kind} ×`);
  });

  it("passes a driver that sends the event's traceparent as it is, noting that it records no spans", async () => {
    const { cli, report } = await driverRun("forwards-as-is.mjs", ...claim, "--strict");
    expect(cli.code, cli.stdout).toBe(0);
    expect(statusOf(report, "CAP-TRACE-11")).toBe("passed");
    expect(report.checks.flatMap((c) => c.notes).some((n) => /records no spans/.test(n))).toBe(true);
  });

  it.each([
    ["drops-traceparent-on-ack.mjs", "CAP-TRACE-9"],
    ["alters-tracestate.mjs", "CAP-TRACE-10"],
  ])("fails %s naming %s", async (file, id) => {
    const { cli, report } = await driverRun(file, ...claim);
    expect(cli.code, cli.stdout).toBe(1);
    expect(failedIds(report)).toEqual([id]);
  });

  it("warns about acks-outside-its-span.mjs naming CAP-TRACE-11, and fails it under --strict", async () => {
    const { cli, report } = await driverRun("acks-outside-its-span.mjs", ...claim, "--strict");
    expect(cli.code, cli.stdout).toBe(1);
    expect(statusOf(report, "CAP-TRACE-11")).toBe("warned");
    expect(failedIds(report)).toEqual([]);
  });
});
