/**
 * One `cap-conformance driver` run: start the reference kernel in-process and the fault proxy in front
 * of it, select the driver checks (`--only`/`--skip`/`--level`, `--wait` limits), run each scenario
 * against a fresh agent and a freshly started driver (or the user's one under `--wait`), stop the driver,
 * then judge the results with the kernel suite's verdict rules (manifest levels, baseline, exit code).
 */
import { type Baseline, loadBaseline } from "../baseline.js";
import { CheckFailed, CheckIncomplete, CheckSkipped } from "../context.js";
import { features } from "../features.js";
import { loadManifest, type Manifest, strongest } from "../requirements.js";
import { baseResult, checkResult } from "../runner/execute.js";
import { judge } from "../runner/judge.js";
import { rerunFailures } from "../runner/rerun.js";
import type { CheckResult, RunReport } from "../runner/results.js";
import type { RunHooks } from "../runner/run-suite.js";
import { globToRegExp } from "../runner/select.js";
import { toolVersion } from "../version.js";
import type { DriverCheck } from "./check.js";
import { DriverContext, type DriverRunState } from "./context.js";
import { driverEnvironment } from "./driver-process.js";
import { FaultProxy, type WireExchange } from "./fault-proxy.js";
import type { DriverSettings } from "./settings.js";
import { World } from "./world.js";

export interface DriverHooks extends RunHooks {
  /** Under --wait: the environment the user's driver needs, printed before the first scenario. */
  onWait?(env: Record<string, string>): void;
}

export interface DriverSuiteInput {
  settings: DriverSettings;
  checks: readonly DriverCheck[];
  manifest?: Manifest;
  hooks?: DriverHooks;
}

const matches = (c: DriverCheck, pattern: string) => {
  const re = globToRegExp(pattern);
  return re.test(c.id) || re.test(c.family) || c.verifies.some((id) => re.test(id));
};

/**
 * Why a check does not run: the user's selection left it out (`notSelected`: counted, never listed), or
 * `--wait` cannot give it what it needs (`cannotRun`: reported incomplete, since the check applies and its
 * requirements go unverified).
 */
function whyNot(
  c: DriverCheck,
  s: DriverSettings,
  manifest: Manifest,
): { notSelected: string } | { cannotRun: string } | { unclaimed: string } | undefined {
  if (s.only.length > 0 && !s.only.some((p) => matches(c, p)))
    return { notSelected: `not selected by --only ${s.only.join(" ")}` };
  const skipped = s.skip.find((p) => matches(c, p));
  if (skipped) return { notSelected: `excluded by --skip ${skipped}` };
  const level = strongest(c.verifies.map((id) => manifest.byId.get(id)).filter((r) => r !== undefined));
  if (s.level === "must" && level === "SHOULD")
    return { notSelected: "verifies only SHOULD requirements, below --level must" };
  if (c.feature && !s.claims.includes(c.feature))
    return { unclaimed: `the driver does not claim "${c.feature}" (--claim ${c.feature})` };
  if (s.wait && c.restart)
    return { cannotRun: "needs the driver started anew with a fresh /info: run with --command" };
  if (s.wait && c.needsProcess)
    return { cannotRun: "judges the driver's stderr, which only --command can see: run with --command" };
  return undefined;
}

async function execute(check: DriverCheck, run: DriverRunState, manifest: Manifest): Promise<CheckResult> {
  const ctx = new DriverContext(check, run);
  const t0 = performance.now();
  let status: CheckResult["status"] | undefined;
  let reason: string | undefined;
  let stoppedEarly = false;
  let ended = false;
  try {
    await check.run(ctx);
  } catch (e) {
    if (e instanceof CheckFailed) stoppedEarly = true;
    if (e instanceof CheckSkipped) {
      status = "skipped";
      reason = e.message;
    } else if (e instanceof CheckIncomplete) {
      status = "incomplete";
      reason = e.message;
    } else if (!(e instanceof CheckFailed)) {
      status = "incomplete";
      reason = `harness error: ${(e as Error)?.stack ?? String(e)}`;
    }
  } finally {
    // Whether the driver ended by itself, before end() stops it.
    ended = ctx.driver !== undefined && !ctx.driver.running;
    await ctx.end();
  }
  // A check run again adds its second run's traffic: the aggregates judge every request the driver made.
  if (!check.last) run.byCheck.set(check.id, [...(run.byCheck.get(check.id) ?? []), ...ctx.wire()]);
  if (ctx.driver && ended && !check.revokes)
    ctx.note(`the driver ended during the scenario (${ctx.driver.describeExit()})`);
  return checkResult(check, manifest, {
    status,
    reason,
    stoppedEarly,
    startedAt: t0,
    failures: ctx.failures,
    notes: ctx.notes,
    ...(run.settingsTrace ? { exchanges: ctx.wire() } : {}),
  });
}

export async function runDriverSuite({
  settings,
  checks,
  hooks,
  ...rest
}: DriverSuiteInput): Promise<RunReport> {
  const startedAt = new Date();
  const full = rest.manifest ?? (await loadManifest(settings.requirements));
  // The driver report speaks of driver requirements only; kernel ones are `cap-conformance run`'s.
  const drivers = full.requirements.filter((r) => r.subject === "driver");
  const manifest: Manifest = { ...full, requirements: drivers, byId: new Map(drivers.map((r) => [r.id, r])) };
  const baseline: Baseline | undefined = settings.baseline
    ? await loadBaseline(settings.baseline)
    : undefined;
  const runId = startedAt.getTime().toString(36).slice(-5) + Math.random().toString(36).slice(2, 5);
  const world = await World.start({
    leaseSeconds: settings.leaseSeconds,
    maxAttempts: settings.maxAttempts,
    runId,
  });
  const secrets = new Map<string, string>([[world.human.token, "human"]]);
  const proxy = new FaultProxy(world.url, secrets);
  await proxy.start();
  try {
    const run: DriverRunState = {
      runId,
      world,
      proxy,
      secrets,
      leaseMs: settings.leaseSeconds * 1000,
      timeScale: settings.timeScale,
      byCheck: new Map<string, WireExchange[]>(),
      hidesReplay: new Set(checks.filter((c) => c.hidesFeatures).map((c) => c.id)),
      startupMs: Math.round(settings.startupSeconds * 1000),
      settingsTrace: settings.trace,
    };
    if (settings.command) run.command = settings.command;
    const selection = checks.map((check) => ({ check, skip: whyNot(check, settings, manifest) }));
    // Under --wait one driver serves every scenario, so the scenarios that revoke its token go last.
    const order = settings.wait
      ? [...selection.filter((s) => !s.check.revokes), ...selection.filter((s) => s.check.revokes)]
      : selection;
    const probe = await world.createAgent("probe", [await world.createPod("probe")]);
    const info = await world.info(probe.token);
    const advertised = Array.isArray(info?.features) ? (info.features as string[]) : [];
    const target: RunReport["target"] = {
      urls: [proxy.url],
      info,
      features: features.filter((f) => f === "info" || advertised.includes(f)),
      claimed: settings.claims,
      leaseSeconds: settings.leaseSeconds,
      maxAttempts: settings.maxAttempts,
      timeScale: settings.timeScale,
      trigger: "protocol",
    };
    if (settings.wait) {
      const [p1, p2] = [await world.createPod("p1"), await world.createPod("p2")];
      run.shared = await world.createAgent("wait", [p1, p2]);
      secrets.set(run.shared.token, run.shared.name);
      hooks?.onWait?.(
        driverEnvironment({
          url: proxy.url,
          token: run.shared.token,
          podId: p1.id,
          agentName: run.shared.name,
        }),
      );
    }
    const results = new Map<string, CheckResult>();
    const report = (r: CheckResult) => {
      results.set(r.id, r);
      hooks?.onResult?.(r);
    };
    // Checks the selection left out are recorded (the JSON report keeps them) but not reported as they go.
    for (const s of order)
      if (s.skip && "notSelected" in s.skip)
        results.set(s.check.id, {
          ...baseResult(s.check, manifest),
          status: "skipped",
          durationMs: 0,
          reason: s.skip.notSelected,
          selected: false,
        });
    hooks?.onStart?.(selection.filter((s) => !(s.skip && "notSelected" in s.skip)).length, target);
    for (const s of order)
      if (s.skip && "unclaimed" in s.skip)
        report({
          ...baseResult(s.check, manifest),
          status: "skipped",
          durationMs: 0,
          reason: s.skip.unclaimed,
        });
    for (const s of order)
      if (s.skip && "cannotRun" in s.skip)
        report({
          ...baseResult(s.check, manifest),
          status: "incomplete",
          durationMs: 0,
          reason: s.skip.cannotRun,
        });
    const scenarios = order.filter((s) => !s.skip && !s.check.last).map((s) => s.check);
    const aggregates = order.filter((s) => !s.skip && s.check.last).map((s) => s.check);
    const again = {
      results,
      baseline,
      strict: settings.strict,
      run: (c: DriverCheck) => execute(c, run, manifest),
      ...(hooks?.onRerun ? { onRerun: hooks.onRerun } : {}),
    };
    // Under --wait one driver serves every scenario and the ones that revoke its token run last: the others
    // are run again before them, and those cannot be (the driver has stopped for good).
    const revoking = settings.wait ? scenarios.filter((c) => c.revokes) : [];
    const rest = scenarios.filter((c) => !revoking.includes(c));
    for (const c of rest) report(await execute(c, run, manifest));
    await rerunFailures({ ...again, checks: rest });
    for (const c of revoking) report(await execute(c, run, manifest));
    for (const c of aggregates) report(await execute(c, run, manifest));
    await rerunFailures({ ...again, checks: aggregates });

    const ordered = checks.map((c) => results.get(c.id)).filter((r) => r !== undefined);
    const judged = judge(ordered, manifest, baseline, settings.strict, settings.level);
    const finishedAt = new Date();
    return {
      reportVersion: 1,
      mode: "driver",
      tool: { name: "cap-conformance", version: toolVersion },
      runId,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      target,
      driver: settings.command ? { command: settings.command } : { wait: true },
      settings: {
        only: settings.only,
        skip: settings.skip,
        level: settings.level,
        strict: settings.strict,
        trace: settings.trace,
      },
      ...judged,
      canary: { hits: [] },
      notes: [
        `the kernel: @commonly/cap-kernel in-process on SQLite :memory:, lease ${settings.leaseSeconds} s, maxAttempts ${settings.maxAttempts}, behind the fault layer at ${proxy.url}`,
      ],
    };
  } finally {
    await proxy.stop();
    await world.close();
  }
}
