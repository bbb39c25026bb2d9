/**
 * One conformance run, start to finish: load the manifest and error registry, start the canary, preflight
 * the kernel, drain the fixture queues, run the selected checks in two lanes (queue checks one at a time;
 * all other checks one at a time beside them), then the checks that must run alone (store outages), then
 * run each check that failed unexpectedly once more alone (rerun.ts), then the aggregates, then judge the
 * run against the baseline.
 * Throws ConfigError for configuration problems; the CLI maps that to exit code 2.
 */
import { type Baseline, loadBaseline } from "../baseline.js";
import { Canary } from "../canary.js";
import type { Check } from "../check.js";
import { ConfigError } from "../config/errors.js";
import { castOf } from "../config/fixture.js";
import type { Settings } from "../config/settings.js";
import { CheckContext, CheckFailed, CheckIncomplete, type RunState } from "../context.js";
import { loadErrorRegistry } from "../error-registry.js";
import { AuditLog } from "../http/audit-log.js";
import { HttpClient } from "../http/client.js";
import { drain } from "../queue.js";
import { loadManifest, type Manifest } from "../requirements.js";
import { toolVersion } from "../version.js";
import { baseResult, executeCheck } from "./execute.js";
import { judge } from "./judge.js";
import { preflight } from "./preflight.js";
import { rerunFailures } from "./rerun.js";
import type { CheckResult, RunReport } from "./results.js";
import { select } from "./select.js";

export interface RunHooks {
  onStart?(total: number, target: RunReport["target"]): void;
  onResult?(result: CheckResult): void;
  /** A check that failed unexpectedly was run again, alone: its result, with `firstRun`. */
  onRerun?(result: CheckResult): void;
}

export interface SuiteInput {
  settings: Settings;
  checks: readonly Check[];
  manifest?: Manifest;
  hooks?: RunHooks;
}

export async function runSuite({ settings, checks, hooks, ...rest }: SuiteInput): Promise<RunReport> {
  const startedAt = new Date();
  const manifest = rest.manifest ?? (await loadManifest(settings.requirements));
  const baseline: Baseline | undefined = settings.baseline
    ? await loadBaseline(settings.baseline)
    : undefined;
  const cast = castOf(settings.fixture);
  const secrets = new Map<string, string>((["a", "b", "c"] as const).map((r) => [cast[r].token, r]));
  for (const [i, agent] of settings.fixture.agents.entries())
    if (!secrets.has(agent.token)) secrets.set(agent.token, `agent${i}`);
  if (settings.fixture.human) secrets.set(settings.fixture.human.token, "human");
  if (settings.fixture.revokedToken) secrets.set(settings.fixture.revokedToken, "revoked");
  const http = new HttpClient(settings.urls, secrets);
  const audit = new AuditLog(await loadErrorRegistry());
  const canary = new Canary(settings.canaryHost);
  await canary.start();
  try {
    const pre = await preflight(http, settings, cast);
    http.observe(audit.record);
    const runId = startedAt.getTime().toString(36) + Math.random().toString(36).slice(2, 5);
    const run: RunState = {
      runId,
      settings,
      cast,
      http,
      timing: pre.timing,
      features: pre.features,
      canary,
      audit,
    };
    if (pre.info) run.info = pre.info;
    const setup = new CheckContext({ id: "setup.drain", verifies: [] }, run);
    try {
      for (const role of ["a", "b", "c"] as const) await drain(setup, role);
    } catch (e) {
      // A kernel that cannot even be drained gives no run to judge: say which step, as a preflight error.
      if (!(e instanceof CheckFailed || e instanceof CheckIncomplete)) throw e;
      const f = setup.failures[0];
      throw new ConfigError(
        `draining the fixture agents' queues before the run: ${e.message}${f?.actual ? ` — ${f.actual}` : ""}`,
      );
    }

    const selection = select(checks, manifest, { ...settings, features: pre.features });
    const target: RunReport["target"] = {
      urls: settings.urls,
      info: pre.info ?? null,
      features: [...pre.features].sort(),
      claimed: settings.claims,
      leaseSeconds: pre.timing.leaseMs === undefined ? null : pre.timing.leaseMs / 1000,
      maxAttempts: pre.timing.maxAttempts ?? null,
      timeScale: settings.timeScale,
      trigger: settings.triggerCmd ? "command" : "protocol",
    };
    const results = new Map<string, CheckResult>();
    const report = (r: CheckResult) => {
      results.set(r.id, r);
      hooks?.onResult?.(r);
    };
    // Checks the selection left out are recorded (the JSON report keeps them) but not reported as they go.
    for (const s of selection)
      if (s.notSelected)
        results.set(s.check.id, {
          ...baseResult(s.check, manifest),
          status: "skipped",
          durationMs: 0,
          reason: s.skip ?? "not selected",
          selected: false,
        });
    hooks?.onStart?.(selection.filter((s) => !s.notSelected).length, target);
    for (const s of selection)
      if (s.skip && !s.notSelected)
        report({ ...baseResult(s.check, manifest), status: "skipped", durationMs: 0, reason: s.skip });
    const runnable = selection.filter((s) => !s.skip).map((s) => s.check);
    const lane = async (list: Check[]) => {
      for (const c of list) report(await executeCheck(c, run, manifest));
    };
    await Promise.all([
      lane(runnable.filter((c) => c.queue && !c.last && !c.alone)),
      lane(runnable.filter((c) => !c.queue && !c.last && !c.alone)),
    ]);
    await lane(runnable.filter((c) => c.alone && !c.last));
    const again = {
      results,
      baseline,
      strict: settings.strict,
      run: (c: Check) => executeCheck(c, run, manifest),
    };
    // Before the aggregates, which judge what every check did (the canary's hits among it).
    await rerunFailures({ ...again, checks: runnable.filter((c) => !c.last), onRerun: hooks?.onRerun });
    await lane(runnable.filter((c) => c.last));
    await rerunFailures({ ...again, checks: runnable.filter((c) => c.last), onRerun: hooks?.onRerun });

    const ordered = checks.map((c) => results.get(c.id)).filter((r) => r !== undefined);
    const judged = judge(ordered, manifest, baseline, settings.strict, settings.level);
    const finishedAt = new Date();
    return {
      reportVersion: 1,
      tool: { name: "cap-conformance", version: toolVersion },
      runId,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      target,
      settings: {
        only: settings.only,
        skip: settings.skip,
        level: settings.level,
        strict: settings.strict,
        trace: settings.trace,
      },
      ...judged,
      canary: { hits: canary.hits },
      notes: pre.notes,
    };
  } finally {
    await canary.stop();
  }
}
