/**
 * Runs one check and turns what it recorded into a CheckResult: severities from the manifest, curl
 * reproducers for the exchanges behind failures, the reason when it could not run. A check that throws
 * anything but the context's own signals is a harness problem and is reported as incomplete, never as a
 * pass.
 */
import type { Check } from "../check.js";
import {
  CheckContext,
  CheckFailed,
  CheckIncomplete,
  CheckSkipped,
  type Failure,
  type RunState,
} from "../context.js";
import { NetworkError } from "../http/client.js";
import { curlFor } from "../http/curl.js";
import { type Manifest, strongest } from "../requirements.js";
import type { CheckResult, CheckStatus, FailureReport } from "./results.js";

export function failureReport(f: Failure, manifest: Manifest): FailureReport {
  const req = manifest.byId.get(f.requirement);
  const level = req?.level ?? "MUST";
  const report: FailureReport = {
    requirement: f.requirement,
    level,
    // A MAY requirement only runs behind an advertised or claimed feature, which makes it mandatory.
    severity: level === "SHOULD" ? "warn" : "fail",
    requirementText: req?.text ?? "(not in the requirements manifest)",
    message: f.message,
  };
  if (f.expected !== undefined) report.expected = f.expected;
  if (f.actual !== undefined) report.actual = f.actual;
  if (f.exchange) {
    report.curl = curlFor(f.exchange);
    report.exchange = f.exchange;
  }
  if (f.wire && f.wire.length > 0) report.wire = f.wire;
  if (f.setup !== undefined) report.setup = f.setup;
  return report;
}

export function baseResult(
  check: Pick<Check, "id" | "title" | "verifies" | "feature"> & { family: CheckResult["family"] },
  manifest: Manifest,
): Omit<CheckResult, "status" | "durationMs"> {
  const reqs = check.verifies.map((id) => manifest.byId.get(id)).filter((r) => r !== undefined);
  return {
    id: check.id,
    family: check.family,
    title: check.title,
    verifies: [...check.verifies],
    ...(check.feature ? { feature: check.feature } : {}),
    level: strongest(reqs),
    failures: [],
    notes: [],
  };
}

/** How a check ended, as both runners (kernel and driver suite) record it before the verdict. */
export interface CheckEnding {
  status: CheckStatus | undefined;
  reason: string | undefined;
  stoppedEarly: boolean;
  startedAt: number;
  failures: Failure[];
  notes: string[];
  exchanges?: CheckResult["exchanges"];
}

/**
 * The one verdict of a check: a failing failure fails it, any other warns it, none passes it — except that
 * a check stopped by a setup step that only warns did not judge its own requirements: it is incomplete.
 * A setup failure naming an id the manifest lacks is a harness bug, reported as such.
 */
export function checkResult(
  check: Parameters<typeof baseResult>[0],
  manifest: Manifest,
  end: CheckEnding,
): CheckResult {
  const unknown = end.failures.find((f) => f.setup !== undefined && !manifest.byId.has(f.requirement));
  if (unknown)
    return checkResult(check, manifest, {
      ...end,
      failures: [],
      status: "incomplete",
      reason: `harness error: setup step "${unknown.setup}" names ${unknown.requirement}, which is not in the requirements manifest`,
    });
  const failures = end.failures.map((f) => failureReport(f, manifest));
  const setup = failures.find((f) => f.setup !== undefined);
  let status = end.status;
  let reason = end.reason;
  if (setup) reason ??= `setup failed: ${setup.setup} (${setup.requirement})`;
  if (failures.some((f) => f.severity === "fail")) status = "failed";
  else if (setup) status = "incomplete";
  else if (failures.length > 0 && status !== "incomplete") status = "warned";
  const result: CheckResult = {
    ...baseResult(check, manifest),
    status: status ?? "passed",
    durationMs: Math.round(performance.now() - end.startedAt),
    failures,
    notes: end.notes,
  };
  if (reason !== undefined) result.reason = reason;
  if (end.stoppedEarly) result.stoppedEarly = true;
  if (end.exchanges !== undefined) result.exchanges = end.exchanges;
  return result;
}

export async function executeCheck(check: Check, run: RunState, manifest: Manifest): Promise<CheckResult> {
  const ctx = new CheckContext(check, run);
  const t0 = performance.now();
  let reason: string | undefined;
  let status: CheckStatus | undefined;
  let stoppedEarly = false;
  try {
    await check.run(ctx);
  } catch (e) {
    if (e instanceof CheckFailed) stoppedEarly = true;
    if (e instanceof CheckSkipped) {
      status = "skipped";
      reason = e.message;
    } else if (e instanceof CheckIncomplete || e instanceof NetworkError) {
      reason = e.message;
      status = "incomplete";
    } else if (!(e instanceof CheckFailed)) {
      reason = `harness error: ${(e as Error)?.stack ?? String(e)}`;
      status = "incomplete";
    }
  }
  return checkResult(check, manifest, {
    status,
    reason,
    stoppedEarly,
    startedAt: t0,
    failures: ctx.failures,
    notes: ctx.notes,
    ...(run.settings.trace ? { exchanges: ctx.exchanges } : {}),
  });
}
