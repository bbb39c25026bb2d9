/** Test helper: hand-made manifests and check results, for the harness's pure parts. */
import { parseManifest } from "../../src/requirements.js";
import type { CheckResult, FailureReport } from "../../src/runner/results.js";

export const manifest = parseManifest(
  JSON.stringify({
    requirements: [
      {
        id: "CAP-EVT-1",
        level: "MUST",
        subject: "kernel",
        text: "must one",
        section: "Events",
        testable: true,
        feature: null,
      },
      {
        id: "CAP-EVT-7",
        level: "SHOULD",
        subject: "kernel",
        text: "should seven",
        section: "Events",
        testable: true,
        feature: null,
      },
      {
        id: "CAP-LEASE-7",
        level: "MUST",
        subject: "kernel",
        text: "renew",
        section: "Leases",
        testable: true,
        feature: "renew",
      },
      {
        id: "CAP-AUTH-3",
        level: "MUST",
        subject: "kernel",
        text: "hashes",
        section: "Auth",
        testable: false,
        feature: null,
      },
      {
        id: "CAP-DRV-1",
        level: "MUST",
        subject: "driver",
        text: "driver",
        section: "Drivers",
        testable: false,
        feature: null,
      },
    ],
  }),
  "fake",
);

export function failure(requirement: string, severity: "fail" | "warn" = "fail"): FailureReport {
  const level = manifest.byId.get(requirement)?.level ?? "MUST";
  return { requirement, level, severity, requirementText: "text", message: `${requirement} broke` };
}

export function result(
  id: string,
  status: CheckResult["status"],
  verifies: string[],
  failures: FailureReport[] = [],
): CheckResult {
  return {
    id,
    family: "events",
    title: id,
    verifies,
    level: "MUST",
    status,
    durationMs: 1,
    failures,
    notes: [],
  };
}
