/**
 * The suite proves itself against the reference kernel: every applicable check passes (exit 0) on SQLite,
 * on PostgreSQL, and on two PostgreSQL replicas given as two --url values; the JSON report validates
 * against the published report schema; and on the plain store of each dialect (no accelerators, as
 * `serve --no-accelerate` runs it). Every run's fixture carries the store-outage hook (the kit's
 * storeOutageSwitch: the SQLite file's write lock taken by this process, or a TCP proxy to PostgreSQL that
 * cuts every connection), so the outage checks run, never skip. Known kernel bugs live in
 * reference-kernel.expected-failures.yaml (which can only shrink).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freshPgSchema,
  freshSqliteUrl,
  pgSkipReason,
  pgTestUrl,
  provisionConformance,
  type StoreOutageSwitch,
  startKernel,
  storeOutageSwitch,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./support/run-cli.js";

const baseline = join(import.meta.dirname, "reference-kernel.expected-failures.yaml");
const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "schema", "report-v1.schema.json"), "utf8"),
);
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateReport = ajv.compile(schema);

const CLAIMS = ["release", "batch-ack", "poll-replay"];
const kernels: TestKernel[] = [];
const switches: StoreOutageSwitch[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const k of kernels) await k.stop();
  for (const s of switches) await s.close();
  for (const c of cleanups) await c();
});

async function suiteAgainst(db: string, replicas: number, env?: NodeJS.ProcessEnv) {
  // Every replica reaches the store through the switch, so the hook's outage is every replica's.
  const outage = await storeOutageSwitch(db);
  switches.push(outage);
  const opts = { db: outage.db, leaseSeconds: 1, maxAttempts: 3 };
  const first = await startKernel({ ...opts, provision: false, ...(env ? { env } : {}) });
  kernels.push(first);
  const urls = [first.url];
  for (let i = 1; i < replicas; i++) {
    const k = await startKernel({ ...opts, provision: false, ...(env ? { env } : {}) });
    kernels.push(k);
    urls.push(k.url);
  }
  const { path } = await provisionConformance({ ...opts, baseUrl: first.url, storeOutage: outage.commands });
  const out = mkdtempSync(join(tmpdir(), "cap-conformance-reports-"));
  const reports = ["json", "junit", "markdown", "html"].map((f) => `${f}=${join(out, `report.${f}`)}`);
  const args = [
    "run",
    "--fixture",
    path,
    "--baseline",
    baseline,
    ...urls.flatMap((u) => ["--url", u]),
    // The queue verbs are optional; the reference kernel claims them, so their checks are mandatory here.
    ...CLAIMS.flatMap((c) => ["--claim", c]),
  ];
  const result = await runCli([...args, ...reports.flatMap((r) => ["--report", r])]);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
  return { result, report, out };
}

function expectAllPassed(result: Awaited<ReturnType<typeof suiteAgainst>>) {
  const { report, result: cli } = result;
  const notPassed = report.checks
    .filter((c: { status: string }) => c.status !== "passed" && c.status !== "expected-failure")
    .map(
      (c: { id: string; status: string; reason?: string; failures: { message: string }[] }) =>
        `${c.id}: ${c.status} ${c.reason ?? ""} ${c.failures.map((f) => f.message).join("; ")}`,
    );
  expect(notPassed).toEqual([]);
  expect(cli.code, cli.stdout.slice(-3000)).toBe(0);
  expect(report.summary.skipped).toBe(0);
  const outage = report.checks.filter((c: { family: string }) => c.family === "outage");
  expect(outage.map((c: { id: string; status: string }) => `${c.id} ${c.status}`)).toEqual([
    "outage.store-unavailable passed",
    "outage.recovers passed",
  ]);
  expect(report.target.claimed).toEqual(expect.arrayContaining(CLAIMS));
  for (const family of CLAIMS)
    expect(
      report.checks.filter(
        (c: { family: string; status: string }) => c.family === family && c.status === "passed",
      ).length,
      family,
    ).toBeGreaterThan(0);
}

describe("cap-conformance against the reference kernel", () => {
  it("passes every check on SQLite, and writes a JSON report that matches the published schema", async () => {
    const run = await suiteAgainst(freshSqliteUrl(), 1);
    expectAllPassed(run);
    expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
    const junit = readFileSync(join(run.out, "report.junit"), "utf8");
    expect(junit).toMatch(/^<\?xml[^>]+\?>\n<testsuites name="cap-conformance" tests="\d+" failures="0"/);
    const md = readFileSync(join(run.out, "report.markdown"), "utf8");
    expect(md).toContain("| CAP-LEASE-3 | MUST |  | ✅ passed |");
    const html = readFileSync(join(run.out, "report.html"), "utf8");
    expect(html).not.toMatch(/<(script|link|img)\b/);
    expect(run.result.stdout).not.toMatch(/cm_agent_[0-9a-f]{64}/);
    expect(JSON.stringify(run.report)).not.toMatch(/cm_agent_[0-9a-f]{64}/);
  });

  it.skipIf(!pgTestUrl)(
    `passes every check on PostgreSQL${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
    async () => {
      const db = await freshPgSchema("cap_conformance");
      cleanups.push(db.drop);
      expectAllPassed(await suiteAgainst(db.url, 1));
    },
  );

  it.skipIf(!pgTestUrl)(
    `passes every check on two PostgreSQL replicas given as two --url${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
    async () => {
      const db = await freshPgSchema("cap_conformance");
      cleanups.push(db.drop);
      const run = await suiteAgainst(db.url, 2);
      expectAllPassed(run);
      expect(run.report.target.urls).toHaveLength(2);
    },
  );

  // The reference path (--no-accelerate: the plain store, no token cache) keeps the same protocol.
  it("passes every check on SQLite without accelerators (CAP_ACCELERATE=0)", async () => {
    expectAllPassed(await suiteAgainst(freshSqliteUrl(), 1, { CAP_ACCELERATE: "0" }));
  });

  it.skipIf(!pgTestUrl)(
    `passes every check on PostgreSQL without accelerators${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
    async () => {
      const db = await freshPgSchema("cap_conformance");
      cleanups.push(db.drop);
      expectAllPassed(await suiteAgainst(db.url, 1, { CAP_ACCELERATE: "0" }));
    },
  );
});
