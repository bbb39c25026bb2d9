/**
 * conformance/baselines/production.yaml is the one list of what the production dialect costs against CAP:
 * `cap-kernel serve --profile production` passes the suite with it (exit 0, no stale entry), fails it
 * without it on exactly the listed check ids, and docs/CAP.md's appendix shows the same list. The default
 * profile needs no baseline at all.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freshSqliteUrl,
  provisionConformance,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
// @ts-expect-error — a plain .mjs script without type declarations.
import { BASELINE, CAP_MD, currentAppendix, renderAppendix } from "../scripts/production-appendix.mjs";
import { parseBaseline } from "../src/baseline.js";
import { runCli } from "./support/run-cli.js";

const baselineText = readFileSync(BASELINE, "utf8");
const listed = parseBaseline(baselineText, BASELINE).entries.map((e) => e.check);

const kernels: TestKernel[] = [];
afterAll(async () => {
  for (const k of kernels) await k.stop();
});

interface ReportCheck {
  id: string;
  status: string;
}

async function runAgainstProductionProfile(extra: string[]) {
  const opts = { db: freshSqliteUrl(), leaseSeconds: 1, maxAttempts: 3 };
  const kernel = await startKernel({ ...opts, profile: "production", provision: false });
  kernels.push(kernel);
  const { path } = await provisionConformance({ ...opts, baseUrl: kernel.url });
  const out = join(mkdtempSync(join(tmpdir(), "cap-conformance-production-")), "report.json");
  const cli = await runCli(["run", "--fixture", path, "--report", `json=${out}`, ...extra]);
  if (!existsSync(out))
    throw new Error(`no report (exit ${cli.code}): ${cli.stderr}${cli.stdout.slice(-2000)}`);
  const report = JSON.parse(readFileSync(out, "utf8")) as {
    checks: ReportCheck[];
    summary: { skipped: number; staleBaseline: number };
  };
  await kernel.stop();
  const ids = (status: string) =>
    report.checks
      .filter((c) => c.status === status)
      .map((c) => c.id)
      .sort();
  return { cli, report, ids };
}

describe("conformance/baselines/production.yaml", () => {
  it("names checks only, each once, each with a reason", () => {
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((id) => typeof id === "string")).toBe(true);
    expect(new Set(listed).size).toBe(listed.length);
    for (const e of parseBaseline(baselineText, BASELINE).entries)
      expect(e.reason.length).toBeGreaterThan(20);
  });

  it("is the list docs/CAP.md's appendix shows (regenerate: node conformance/scripts/production-appendix.mjs)", () => {
    expect(currentAppendix(readFileSync(CAP_MD, "utf8"))).toBe(renderAppendix(baselineText));
  });

  it("lets cap-kernel --profile production pass the suite, with no stale entry", async () => {
    const { cli, report, ids } = await runAgainstProductionProfile(["--baseline", BASELINE]);
    expect(ids("failed"), cli.stdout.slice(-3000)).toEqual([]);
    expect(ids("expected-failure")).toEqual([...listed].sort());
    expect(report.summary.staleBaseline).toBe(0);
    // The production kernel has no cancellation and ignores trace headers, so the profile advertises
    // neither: the cancel and trace families are skipped (never passed), and so is the outage family,
    // whose store-outage hook this run does not configure — nothing else.
    const cancel = report.checks.filter((c) => c.id.startsWith("cancel.")).map((c) => c.id);
    const trace = report.checks.filter((c) => c.id.startsWith("trace.")).map((c) => c.id);
    expect(cancel.length).toBeGreaterThan(0);
    expect(trace.length).toBeGreaterThan(0);
    expect(ids("skipped")).toEqual(
      [...cancel, ...trace, "outage.recovers", "outage.store-unavailable"].sort(),
    );
    expect(cli.code, cli.stdout.slice(-3000)).toBe(0);
  });

  it("is exactly what cap-kernel --profile production fails without a baseline", async () => {
    const { cli, ids } = await runAgainstProductionProfile([]);
    expect(ids("failed")).toEqual([...listed].sort());
    expect(cli.code).toBe(1);
  });

  it("has no counterpart for the default profile: its baseline is empty", () => {
    const text = readFileSync(join(import.meta.dirname, "reference-kernel.expected-failures.yaml"), "utf8");
    expect(parse(text).expectedFailures).toEqual([]);
  });
});
