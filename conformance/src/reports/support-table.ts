/**
 * The support table: every kernel requirement of the manifest with this run's outcome and the checks that
 * covered it. Shared by the Markdown and HTML reports so both always say the same thing.
 */
import type { RequirementResult, RequirementStatus, RunReport } from "../runner/results.js";

export const outcomeLabel: Record<RequirementStatus, string> = {
  passed: "✅ passed",
  failed: "❌ failed",
  warned: "⚠️ warning",
  "expected-failure": "☑️ expected failure",
  incomplete: "❔ incomplete",
  skipped: "➖ not run",
  "not-covered": "◻️ not covered",
  "not-testable": "· not black-box testable",
};

/** Kernel requirements, in manifest order (driver obligations are outside what a kernel suite can see). */
export function supportRows(report: RunReport): RequirementResult[] {
  return report.requirements.filter((r) => r.subject === "kernel");
}

export function coverage(report: RunReport): { covered: number; total: number } {
  const musts = report.requirements.filter(
    (r) => r.subject === "kernel" && r.level === "MUST" && r.status !== "not-testable",
  );
  return { covered: musts.filter((r) => r.checks.length > 0).length, total: musts.length };
}
