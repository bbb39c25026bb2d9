/**
 * Flake control, proved through the real runners: a check that fails once and then passes is run again
 * alone, reported flaky and named in the summary, and does not fail the run; a check that fails twice
 * fails it; a check expected by the baseline, or one that only warns, is not run again. The kernel suite
 * runs against the reference kernel over a real socket, the driver suite plays its in-process kernel;
 * the checks are made up, so each fails exactly when the test says.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  freshSqliteUrl,
  provisionConformance,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { Check } from "../src/check.js";
import { resolveSettings } from "../src/config/settings.js";
import type { CheckContext } from "../src/context.js";
import type { DriverCheck } from "../src/driver/check.js";
import type { DriverContext } from "../src/driver/context.js";
import { runDriverSuite } from "../src/driver/run-driver-suite.js";
import { resolveDriverSettings } from "../src/driver/settings.js";
import { renderJunit } from "../src/reports/junit.js";
import type { CheckResult } from "../src/runner/results.js";
import { runSuite } from "../src/runner/run-suite.js";
import { scratch } from "./support/driver.js";

/** A check body that fails its first `failures` runs (naming `id`), then passes; counts its runs. */
function script(id: string, failures: number) {
  let runs = 0;
  return {
    get runs() {
      return runs;
    },
    run(ctx: { expect(id: string, ok: boolean, d: { message: string }): boolean }) {
      runs++;
      ctx.expect(id, runs > failures, { message: `run ${runs} of a check made to fail ${failures} time(s)` });
    },
  };
}

describe("the kernel suite runs an unexpectedly failing check again, alone, before the verdict", () => {
  let kernel: TestKernel | undefined;
  afterAll(async () => kernel?.stop());

  it("reports a check that failed once as flaky, fails a check that failed twice, and runs the second time alone", async () => {
    kernel = await startKernel({ db: freshSqliteUrl(), leaseSeconds: 1, maxAttempts: 3, provision: false });
    const { path } = await provisionConformance({
      db: kernel.db,
      leaseSeconds: 1,
      maxAttempts: 3,
      baseUrl: kernel.url,
    });
    let running = 0;
    const alone: boolean[] = [];
    const flaky = script("CAP-EVT-1", 1);
    const broken = script("CAP-EVT-1", 2);
    const expected = script("CAP-EVT-1", 2);
    const busy = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const check = (id: string, body: (ctx: CheckContext) => Promise<void>, queue = false): Check => ({
      id,
      family: id.split(".")[0] as Check["family"],
      title: id,
      verifies: ["CAP-EVT-1"],
      queue,
      async run(ctx) {
        running++;
        try {
          await body(ctx);
        } finally {
          running--;
        }
      },
    });
    const checks: Check[] = [
      // Beside the flaky check's first run, in the other lane.
      check("leases.beside", () => busy(300), true),
      check("events.flaky", async (ctx) => {
        alone.push(running === 1);
        await busy(50);
        flaky.run(ctx);
      }),
      check("events.broken", async (ctx) => broken.run(ctx)),
      check("events.expected", async (ctx) => expected.run(ctx)),
    ];
    const baseline = join(scratch(), "expected-failures.yaml");
    writeFileSync(baseline, "- check: events.expected\n  reason: known, fixed in 2.0\n");
    const settings = await resolveSettings({ fixture: path, baseline });
    const reruns: CheckResult[] = [];
    const report = await runSuite({ settings, checks, hooks: { onRerun: (r) => reruns.push(r) } });
    const byId = (id: string) => report.checks.find((c) => c.id === id);
    expect(flaky.runs).toBe(2);
    expect(broken.runs).toBe(2);
    expect(expected.runs).toBe(1);
    // The first run had the queue lane's check beside it; the second had nothing.
    expect(alone).toEqual([false, true]);
    expect(byId("events.flaky")).toMatchObject({
      status: "passed",
      flaky: true,
      firstRun: { status: "failed" },
    });
    expect(byId("events.broken")).toMatchObject({ status: "failed", firstRun: { status: "failed" } });
    expect(byId("events.broken")?.flaky).toBeUndefined();
    expect(byId("events.expected")?.firstRun).toBeUndefined();
    expect(reruns.map((r) => r.id)).toEqual(["events.flaky", "events.broken"]);
    expect(report.summary).toMatchObject({
      exitCode: 1,
      rerun: ["events.flaky", "events.broken"],
      flaky: ["events.flaky"],
    });
    expect(renderJunit(report)).toMatch(
      /name="events\.flaky: events\.flaky"[^\n]*>\n\s*<flakyFailure type="CAP-EVT-1"/,
    );
  });
});

describe("the driver suite runs an unexpectedly failing scenario again before the verdict", () => {
  it("reports a scenario that failed once as flaky and one that failed twice as failed; a warning or an incomplete is not run again", async () => {
    const flaky = script("CAP-DRV-8", 1);
    const broken = script("CAP-DRV-9", 2);
    const should = script("CAP-DRV-15", 2);
    let stuck = 0;
    const check = (id: string, verifies: string, body: (ctx: DriverContext) => void): DriverCheck => ({
      id,
      family: "handling",
      title: id,
      verifies: [verifies],
      async run(ctx) {
        body(ctx);
      },
    });
    const report = await runDriverSuite({
      settings: resolveDriverSettings({ command: "true" }, {}),
      checks: [
        check("driver.handling.flaky", "CAP-DRV-8", (ctx) => flaky.run(ctx)),
        check("driver.handling.broken", "CAP-DRV-9", (ctx) => broken.run(ctx)),
        check("driver.handling.should", "CAP-DRV-15", (ctx) => should.run(ctx)),
        check("driver.handling.stuck", "CAP-DRV-8", (ctx) => {
          stuck++;
          ctx.incomplete("the driver made no poll");
        }),
      ],
    });
    expect([flaky.runs, broken.runs, should.runs, stuck]).toEqual([2, 2, 1, 1]);
    expect(report.summary).toMatchObject({
      exitCode: 1,
      verdict: "not conformant",
      level: null,
      rerun: ["driver.handling.flaky", "driver.handling.broken"],
      flaky: ["driver.handling.flaky"],
      shortOfShould: ["driver.handling.should"],
    });
    expect(report.checks.map((c) => [c.id, c.status, c.flaky ?? false])).toEqual([
      ["driver.handling.flaky", "passed", true],
      ["driver.handling.broken", "failed", false],
      ["driver.handling.should", "warned", false],
      ["driver.handling.stuck", "incomplete", false],
    ]);
  });

  it("runs a warning again under --strict, where it fails the run", async () => {
    const should = script("CAP-DRV-15", 1);
    const report = await runDriverSuite({
      settings: resolveDriverSettings({ command: "true", strict: true }, {}),
      checks: [
        {
          id: "driver.handling.should",
          family: "handling",
          title: "a SHOULD that fails once",
          verifies: ["CAP-DRV-15"],
          async run(ctx) {
            should.run(ctx);
          },
        },
      ],
    });
    expect(should.runs).toBe(2);
    expect(report.summary).toMatchObject({
      exitCode: 0,
      level: "MUST + SHOULD",
      flaky: ["driver.handling.should"],
    });
  });
});
