/**
 * secondRun(), the rule of a check run twice, as a table: the second run is the result unless it reached no
 * verdict, and only a second run that does not fail unexpectedly makes the check flaky.
 */
import { describe, expect, it } from "vitest";
import { secondRun } from "../src/runner/rerun.js";
import type { CheckResult, CheckStatus } from "../src/runner/results.js";

const failure = { requirement: "CAP-ERR-12", severity: "fail", message: "never served again" };

function result(status: CheckStatus, extra: Partial<CheckResult> = {}): CheckResult {
  return {
    id: "outage.recovers",
    family: "outage",
    title: "recovers",
    verifies: ["CAP-ERR-12"],
    level: "MUST",
    status,
    durationMs: 5,
    failures: status === "failed" ? [failure] : [],
    notes: [],
    ...extra,
  } as CheckResult;
}

describe("secondRun", () => {
  it.each<[string, CheckResult, { status: CheckStatus; flaky: boolean; note?: RegExp }]>([
    ["passed the second time: flaky", result("passed"), { status: "passed", flaky: true }],
    ["failed twice: fails, not flaky", result("failed"), { status: "failed", flaky: false }],
    [
      "incomplete the second time: the first failure stands",
      result("incomplete", { reason: "the kernel does not answer" }),
      { status: "failed", flaky: false, note: /run again alone: incomplete: the kernel does not answer/ },
    ],
    [
      "skipped the second time: the first failure stands",
      result("skipped"),
      { status: "failed", flaky: false, note: /run again alone: skipped/ },
    ],
  ])("%s", (_name, second, want) => {
    const r = secondRun(result("failed"), second, undefined, false);
    expect(r.status).toBe(want.status);
    expect(r.flaky === true).toBe(want.flaky);
    expect(r.firstRun?.status).toBe("failed");
    if (want.status === "failed") expect(r.failures).toEqual([failure]);
    if (want.note) expect(r.notes.join("\n")).toMatch(want.note);
  });
});
