/** The verdict rules: statuses, baseline, exit codes and the per-requirement roll-up, as a table. */
import { describe, expect, it } from "vitest";
import { parseBaseline } from "../src/baseline.js";
import { judge } from "../src/runner/judge.js";
import { failure, manifest, result } from "./support/fake.js";

const base = (yaml: string) => parseBaseline(yaml, "expected-failures.yaml");

describe("judging a run", () => {
  const cases = [
    { name: "every check passed → 0", checks: [result("events.a", "passed", ["CAP-EVT-1"])], exit: 0 },
    {
      name: "a MUST failed → 1",
      checks: [result("events.a", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")])],
      exit: 1,
    },
    {
      name: "only a SHOULD failed → 0",
      checks: [result("events.a", "warned", ["CAP-EVT-7"], [failure("CAP-EVT-7", "warn")])],
      exit: 0,
    },
    {
      name: "only a SHOULD failed under --strict → 1",
      checks: [result("events.a", "warned", ["CAP-EVT-7"], [failure("CAP-EVT-7", "warn")])],
      strict: true,
      exit: 1,
    },
    {
      name: "nothing failed, one check incomplete → 3",
      checks: [result("events.a", "incomplete", ["CAP-EVT-1"])],
      exit: 3,
    },
    {
      name: "a failure beats an incomplete → 1",
      checks: [
        result("events.a", "incomplete", ["CAP-EVT-1"]),
        result("events.b", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")]),
      ],
      exit: 1,
    },
    {
      name: "a failure the baseline expects (by check) → 0",
      checks: [result("events.a", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")])],
      baseline: "expectedFailures:\n  - check: events.a\n    reason: known",
      exit: 0,
    },
    {
      name: "a failure the baseline expects (by requirement) → 0",
      checks: [result("events.a", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")])],
      baseline: "- requirement: CAP-EVT-1\n  reason: known",
      exit: 0,
    },
    {
      name: "a baseline entry for a requirement does not hide another requirement's failure → 1",
      checks: [
        result(
          "events.a",
          "failed",
          ["CAP-EVT-1", "CAP-LEASE-7"],
          [failure("CAP-EVT-1"), failure("CAP-LEASE-7")],
        ),
      ],
      baseline: "- requirement: CAP-EVT-1\n  reason: known",
      exit: 1,
    },
    {
      name: "a baseline entry whose check now passes is stale → 1",
      checks: [result("events.a", "passed", ["CAP-EVT-1"])],
      baseline: "- check: events.a\n  reason: fixed since",
      exit: 1,
    },
    {
      name: "a baseline entry whose check was skipped is not stale → 0",
      checks: [result("events.a", "skipped", ["CAP-EVT-1"])],
      baseline: "- check: events.a\n  reason: not run",
      exit: 0,
    },
  ];
  for (const c of cases)
    it(`exits ${c.exit} when ${c.name.split(" → ")[0]}`, () => {
      const j = judge(
        structuredClone(c.checks),
        manifest,
        c.baseline ? base(c.baseline) : undefined,
        c.strict ?? false,
      );
      expect(j.summary.exitCode).toBe(c.exit);
    });

  it("rolls results up per requirement for the support table", () => {
    const j = judge(
      [
        result("events.a", "failed", ["CAP-EVT-1", "CAP-EVT-7"], [failure("CAP-EVT-1")]),
        result("leases.b", "skipped", ["CAP-LEASE-7"]),
      ],
      manifest,
      undefined,
      false,
    );
    const status = Object.fromEntries(j.requirements.map((r) => [r.id, r.status]));
    expect(status).toEqual({
      "CAP-EVT-1": "failed",
      "CAP-EVT-7": "incomplete",
      "CAP-LEASE-7": "skipped",
      "CAP-AUTH-3": "not-testable",
      "CAP-DRV-1": "not-testable",
    });
  });

  it("counts a requirement verified by a check that only warned about another, unless an assertion stopped it", () => {
    const warned = (id: string, stoppedEarly: boolean) => ({
      ...result(id, "warned", ["CAP-EVT-1", "CAP-EVT-7"], [failure("CAP-EVT-7", "warn")]),
      ...(stoppedEarly ? { stoppedEarly: true } : {}),
    });
    const statusOf = (r: ReturnType<typeof warned>) =>
      judge([r], manifest, undefined, false).requirements.find((q) => q.id === "CAP-EVT-1")?.status;
    expect(statusOf(warned("events.ran-to-the-end", false))).toBe("passed");
    expect(statusOf(warned("events.stopped", true))).toBe("incomplete");
  });

  it("rejects a baseline entry that names neither a check nor a requirement", () => {
    expect(() => base("- reason: what?")).toThrow(/exactly one of/);
  });

  it("rejects a baseline entry without a reason, or with an empty one, as a configuration error", () => {
    for (const yaml of [
      "- check: events.a",
      "- requirement: CAP-EVT-1\n  reason: '  '",
      "- check: x\n  reason: 3",
    ])
      expect(() => base(yaml)).toThrow(
        expect.objectContaining({
          name: "ConfigError",
          message: expect.stringMatching(/entry 0 .* has no "reason"/),
        }),
      );
  });
});
