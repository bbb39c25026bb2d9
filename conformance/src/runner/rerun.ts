/**
 * Flake control, for other people's CI: a check that failed unexpectedly — a failure the baseline does not
 * expect that fails the run (a MUST; a SHOULD under `--strict`) — is run once more, alone, before the
 * verdict. A check that reached no verdict (incomplete) is not: it failed nothing, and what stopped it (a
 * driver that never starts, a fixture without a human) would only stop it again, as slowly.
 * The second run is the check's result; the first is kept beside it
 * (`firstRun`), and a check whose second run did not fail is marked `flaky`, so a kernel's or a driver's CI
 * sees a flaky check by name instead of a red run it cannot reproduce. A check is never run a third time,
 * a check that failed the same way twice is not flaky: it fails, and neither is one whose second run
 * reached no verdict: its first failure stands.
 */
import type { Baseline } from "../baseline.js";
import type { CheckResult } from "./results.js";

/** Whether a baseline entry expects this failure (the rule judge() applies). */
const expected = (baseline: Baseline | undefined, checkId: string, requirement: string) =>
  (baseline?.entries ?? []).some((e) => e.check === checkId || e.requirement === requirement);

/** Whether `r` fails the run in a way the baseline does not expect. */
export function failsUnexpectedly(r: CheckResult, baseline: Baseline | undefined, strict: boolean): boolean {
  if (r.selected === false) return false;
  return r.failures.some(
    (f) => !expected(baseline, r.id, f.requirement) && (f.severity === "fail" || strict),
  );
}

/** The result of a check run twice: the second run, with the first beside it. */
export function secondRun(
  first: CheckResult,
  second: CheckResult,
  baseline: Baseline | undefined,
  strict: boolean,
): CheckResult {
  const firstRun: CheckResult["firstRun"] = {
    status: first.status,
    durationMs: first.durationMs,
    failures: first.failures,
    ...(first.reason !== undefined ? { reason: first.reason } : {}),
  };
  // A second run that reached no verdict proves nothing (a kernel broken by the first run cannot set the
  // check up again): the first run's failure stands, with the second named beside it.
  if (second.status === "incomplete" || second.status === "skipped") {
    const why = second.reason ? `: ${second.reason}` : "";
    return { ...first, notes: [...first.notes, `run again alone: ${second.status}${why}`], firstRun };
  }
  return {
    ...second,
    firstRun,
    ...(failsUnexpectedly(second, baseline, strict) ? {} : { flaky: true as const }),
  };
}

export interface RerunInput<C extends { id: string }> {
  /** The checks just run, in order; those whose result fails unexpectedly are run again. */
  checks: readonly C[];
  results: Map<string, CheckResult>;
  /** Runs one check; awaited one at a time, so a check run again runs alone. */
  run(check: C): Promise<CheckResult>;
  baseline: Baseline | undefined;
  strict: boolean;
  onRerun?(result: CheckResult): void;
}

/** Run each unexpectedly failing check of `checks` once more, alone, and record the second run. */
export async function rerunFailures<C extends { id: string }>(o: RerunInput<C>): Promise<void> {
  for (const check of o.checks) {
    const first = o.results.get(check.id);
    if (!first || first.firstRun || !failsUnexpectedly(first, o.baseline, o.strict)) continue;
    const result = secondRun(first, await o.run(check), o.baseline, o.strict);
    o.results.set(check.id, result);
    o.onRerun?.(result);
  }
}
