/**
 * The support table: every kernel requirement of the manifest with this run's outcome and the checks that
 * covered it; and how the run's selection reads. Shared by the text reports so all say the same thing.
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

/** The requirements of the run's subject, in manifest order: kernel ones for `run`, driver ones for `driver`. */
export function supportRows(report: RunReport): RequirementResult[] {
  const subject = report.mode === "driver" ? "driver" : "kernel";
  return report.requirements.filter((r) => r.subject === subject);
}

export function coverage(report: RunReport): { covered: number; total: number } {
  const musts = supportRows(report).filter((r) => r.level === "MUST" && r.status !== "not-testable");
  return { covered: musts.filter((r) => r.checks.length > 0).length, total: musts.length };
}

/** The flags that left checks out, as the user gave them. */
export function selection(report: Pick<RunReport, "settings">): string {
  const o = report.settings;
  const parts = [
    ...(o.only.length > 0 ? [`--only ${o.only.join(" ")}`] : []),
    ...(o.skip.length > 0 ? [`--skip ${o.skip.join(" ")}`] : []),
    ...(o.level === "must" ? ["--level must"] : []),
  ];
  return parts.join(", ");
}
