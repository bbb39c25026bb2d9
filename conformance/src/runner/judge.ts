/**
 * The verdict: apply the baseline (expected failures do not fail the run; entries that now pass do),
 * roll check results up per requirement for the support table, count, pick the exit code, and say how
 * close a conformant run came (MUST + SHOULD, MUST, or only by its baseline) and which checks had to be
 * run again. A failure in a check's setup counts against the requirement it names (the one defining the
 * step), wherever it showed; the check's own requirements are then unverified by it, never failed by it.
 */
import { type Baseline, type BaselineEntry, describeEntry } from "../baseline.js";
import type { LevelFilter } from "../config/settings.js";
import type { Manifest } from "../requirements.js";
import {
  blocksVerdict,
  type CheckResult,
  type ConformanceLevel,
  exitCodeOf,
  type RequirementResult,
  type RequirementStatus,
  type RunReport,
  type Summary,
  verdictOf,
} from "./results.js";

const failing = (r: CheckResult) => r.status === "failed" || r.status === "warned";

function applyBaseline(results: CheckResult[], baseline: Baseline | undefined): BaselineEntry[] {
  const entries = baseline?.entries ?? [];
  const used = new Set<BaselineEntry>();
  for (const r of results) {
    if (!failing(r)) continue;
    for (const f of r.failures) {
      const entry = entries.find((e) => e.check === r.id || e.requirement === f.requirement);
      if (!entry) continue;
      used.add(entry);
      f.expectedBy = `${describeEntry(entry)}: ${entry.reason}`;
    }
    const open = r.failures.filter((f) => !f.expectedBy);
    if (open.length === 0) {
      r.status = "expected-failure";
      r.reason = "every failure is expected by the baseline";
    } else r.status = open.some((f) => f.severity === "fail") ? "failed" : "warned";
  }
  // Stale: what the entry expects to fail was run, and nothing it covers failed.
  return entries.filter((e) => {
    if (used.has(e)) return false;
    const covering = results.filter((r) =>
      e.check ? r.id === e.check : r.verifies.includes(e.requirement ?? ""),
    );
    return covering.some((r) => r.status === "passed") && covering.every((r) => !failing(r));
  });
}

function requirementStatus(id: string, results: CheckResult[]): RequirementStatus {
  const covering = results.filter((r) => r.verifies.includes(id));
  // Failures naming it: of the checks that verify it, and setup steps of any check that rely on it.
  const mine = results.flatMap((r) => r.failures.filter((f) => f.requirement === id));
  if (mine.some((f) => !f.expectedBy && f.severity === "fail")) return "failed";
  if (mine.some((f) => !f.expectedBy)) return "warned";
  if (mine.length > 0) return "expected-failure";
  if (covering.length === 0) return "not-covered";
  // A check that only warned about other requirements, and ran to its end, verified this one.
  if (covering.some((r) => r.status === "passed" || (r.status === "warned" && !r.stoppedEarly)))
    return "passed";
  // A check that stopped on another requirement's failure did not finish verifying this one.
  if (covering.some((r) => r.status !== "skipped")) return "incomplete";
  return "skipped";
}

/**
 * The selected checks that keep a run from `MUST + SHOULD`: one that warned, one whose expected failures
 * include a SHOULD's, and one verifying only SHOULDs that reached no verdict.
 */
function shortOfShould(selected: CheckResult[]): string[] {
  return selected
    .filter(
      (r) =>
        r.status === "warned" ||
        (r.status === "expected-failure" && r.failures.some((f) => f.level === "SHOULD")) ||
        (r.status === "incomplete" && r.level === "SHOULD"),
    )
    .map((r) => r.id);
}

function levelOf(
  exitCode: number,
  selected: CheckResult[],
  short: string[],
  levelFilter: LevelFilter,
): ConformanceLevel | null {
  if (exitCode !== 0) return null;
  if (selected.some((r) => r.failures.some((f) => f.expectedBy && f.severity === "fail"))) return "baseline";
  return short.length > 0 || levelFilter === "must" ? "MUST" : "MUST + SHOULD";
}

export function judge(
  results: CheckResult[],
  manifest: Manifest,
  baseline: Baseline | undefined,
  strict: boolean,
  levelFilter: LevelFilter = "should",
): Pick<RunReport, "summary" | "checks" | "requirements" | "baseline"> {
  const stale = applyBaseline(results, baseline);
  const requirements: RequirementResult[] = manifest.requirements.map((r) => ({
    id: r.id,
    level: r.level,
    subject: r.subject,
    feature: r.feature,
    section: r.section,
    text: r.text,
    checks: results
      .filter((c) => c.verifies.includes(r.id) || c.failures.some((f) => f.setup && f.requirement === r.id))
      .map((c) => c.id),
    status:
      !r.testable && !results.some((c) => c.verifies.includes(r.id))
        ? "not-testable"
        : requirementStatus(r.id, results),
  }));
  const selected = results.filter((r) => r.selected !== false);
  const count = (s: CheckResult["status"]) => selected.filter((r) => r.status === s).length;
  const partial = {
    checks: selected.length,
    passed: count("passed"),
    failed: count("failed"),
    warned: count("warned"),
    skipped: count("skipped"),
    incomplete: count("incomplete"),
    expectedFailures: count("expected-failure"),
    staleBaseline: stale.length,
    notSelected: results.length - selected.length,
  };
  const exitCode = exitCodeOf(partial, strict, results.filter((r) => blocksVerdict(r, strict)).length);
  const short = shortOfShould(selected);
  const summary: Summary = {
    ...partial,
    exitCode,
    verdict: verdictOf(exitCode),
    level: levelOf(exitCode, selected, short, levelFilter),
    shortOfShould: short,
    rerun: selected.filter((r) => r.firstRun).map((r) => r.id),
    flaky: selected.filter((r) => r.flaky).map((r) => r.id),
  };
  return { summary, checks: results, requirements, baseline: { path: baseline?.path ?? null, stale } };
}
