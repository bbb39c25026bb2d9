/**
 * The driver suite proves its strength both ways. The control driver (test/broken-drivers/driver.mjs)
 * passes every MUST; each broken driver — the same driver with one behaviour broken — makes the suite
 * exit 1 naming the requirement that behaviour violates. Runs go through the CLI in-process, the driver
 * as a real child process against the real reference kernel behind the fault layer.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../src/runner/results.js";
import { readReport, scratch } from "./support/driver.js";
import { runCli } from "./support/run-cli.js";

const dir = join(import.meta.dirname, "broken-drivers");
const node = (file: string) => `"${process.execPath}" "${join(dir, file)}"`;

const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "schema", "report-v1.schema.json"), "utf8"),
);
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateReport = ajv.compile(schema);

const failedIds = (r: RunReport) => [
  ...new Set(
    r.checks.flatMap((c) => c.failures.filter((f) => f.severity === "fail").map((f) => f.requirement)),
  ),
];

// driver script, the scenario that catches it, the id it must name
const broken: [string, string, string][] = [
  ["never-acks.mjs", "driver.handling.message-and-mention", "CAP-DRV-8"],
  ["wrong-pod.mjs", "driver.handling.message-and-mention", "CAP-DRV-9"],
  ["posts-twice.mjs", "driver.idempotency.lost-ack", "CAP-DRV-1"],
  ["crashes-on-unknown.mjs", "driver.unknown.*", "CAP-DRV-2"],
  ["hammers-during-503.mjs", "driver.backoff.outage", "CAP-DRV-11"],
  ["ignores-retry-after.mjs", "driver.backoff.outage", "CAP-DRV-12"],
  ["polls-revoked-forever.mjs", "driver.auth.revoked-stops", "CAP-DRV-10"],
  ["tight-loops.mjs", "driver.polling.idle", "CAP-DRV-14"],
  ["posts-after-cancel.mjs", "driver.cancel.*", "CAP-CANCEL-17"],
  ["acks-before-handling.mjs", "driver.handling.crash-mid-handler", "CAP-DRV-18"],
  ["posts-after-lease-lost.mjs", "driver.leases.lost-stops-posts", "CAP-DRV-21"],
  ["exits-on-ack-404.mjs", "driver.handling.ack-not-found", "CAP-DRV-20"],
  ["retries-post-without-key.mjs", "driver.idempotency.post-retried", "CAP-DRV-19"],
  ["retries-post-with-new-key.mjs", "driver.idempotency.post-retried", "CAP-DRV-19"],
];

// SHOULDs: the suite warns (exit 0) and, under --strict, fails naming them.
const brokenShoulds: [string, string, string][] = [
  ["never-watches.mjs", "driver.cancel.running-handler", "CAP-CANCEL-16"],
  ["watches-tightly.mjs", "driver.cancel.running-handler", "CAP-CANCEL-16"],
  ["acks-cancel-as-skipped.mjs", "driver.cancel.*", "CAP-CANCEL-18"],
];

describe("cap-conformance driver against broken drivers", () => {
  it.each(broken)("%s fails %s naming %s", async (file, only, id) => {
    const json = join(scratch(), "report.json");
    const r = await runCli(["driver", "--command", node(file), "--only", only, "--report", `json=${json}`]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toContain(id);
    const report = readReport(json);
    expect(failedIds(report)).toContain(id);
    // A broken driver fails the same way when its scenario runs again alone: never flaky.
    expect(report.summary.flaky, r.stdout).toEqual([]);
    expect(report.summary.rerun.length).toBeGreaterThan(0);
  });

  it.each(brokenShoulds)("%s warns in %s naming %s, and fails it under --strict", async (file, only, id) => {
    const json = join(scratch(), "report.json");
    const r = await runCli([
      "driver",
      "--command",
      node(file),
      "--only",
      only,
      "--strict",
      "--report",
      `json=${json}`,
    ]);
    expect(r.code, r.stdout).toBe(1);
    const report = readReport(json);
    expect(report.requirements.find((q) => q.id === id)?.status, r.stdout).toBe("warned");
    expect(failedIds(report)).toEqual([]);
  });

  it("passes the control driver on every MUST, and its wire log, reports and support table agree", async () => {
    const out = scratch();
    const r = await runCli([
      "driver",
      "--command",
      node("driver.mjs"),
      "--claim",
      "trace-context",
      ...["json", "junit", "markdown", "html"].map((f) => `--report=${f}=${join(out, `report.${f}`)}`),
    ]);
    expect(r.code, r.stdout).toBe(0);
    const report = readReport(join(out, "report.json"));
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.mode).toBe("driver");
    expect(report.checks.filter((c) => c.status === "failed")).toEqual([]);
    expect(report.checks.filter((c) => c.status === "incomplete")).toEqual([]);
    // The control releases and replays nothing: the SHOULDs it does not meet are reported, not hidden.
    expect(report.requirements.filter((q) => q.status === "warned").map((q) => q.id)).toEqual([
      "CAP-REL-11",
      "CAP-REPLAY-7",
    ]);
    // It watches, renews and stops a cancelled turn: the cancel scenarios judged it, and it passed them;
    // it forwards trace context under spans of its own: the trace scenario judged it too.
    for (const id of [
      "CAP-CANCEL-16",
      "CAP-CANCEL-17",
      "CAP-CANCEL-18",
      "CAP-DRV-5",
      "CAP-TRACE-9",
      "CAP-TRACE-11",
      "CAP-DRV-18",
      "CAP-DRV-19",
      "CAP-DRV-20",
      "CAP-DRV-21",
    ])
      expect(report.requirements.find((q) => q.id === id)?.status, id).toBe("passed");
    // …and was told of each cancel (a driver never told passes CAP-CANCEL-17 and -18 with a note instead).
    const untold = report.checks
      .filter((c) => c.id.startsWith("driver.cancel."))
      .flatMap((c) => c.notes.filter((n) => /never told|no running handler/.test(n)));
    expect(untold).toEqual([]);
    expect(report.requirements.every((q) => q.id.startsWith("CAP-"))).toBe(true);
    // Its new scenarios exercised it: killed mid-handler, its posts failed, its lease lost, its ack refused.
    const notes = report.checks.flatMap((c) => c.notes.map((n) => `${c.id}: ${n}`));
    expect(
      notes.filter((n) => /posted no reply|never killed|no post of it failed|neither renewed/.test(n)),
    ).toEqual([]);
    expect(report.summary).toMatchObject({
      level: "MUST",
      shortOfShould: ["driver.leases.stop-releases", "driver.requests.poll-ids"],
      flaky: [],
    });
    expect(r.stdout).toMatch(
      /^short of SHOULD: driver\.leases\.stop-releases \(CAP-REL-11\), driver\.requests\.poll-ids \(CAP-REPLAY-7\); --strict fails them/m,
    );
    expect(r.stdout).toMatch(
      /22 checks: 20 passed, 0 failed, 2 warnings, .* — conformant \(MUST\) \(exit 0\)/,
    );
    const md = readFileSync(join(out, "report.markdown"), "utf8");
    expect(md).toContain("# CAP v1 driver conformance: conformant (MUST)");
    expect(md).toMatch(/\| CAP-DRV-10 \| MUST \| +\| ✅ passed \| `driver.auth.revoked-stops` \|/);
    expect(md).toMatch(/Testable driver MUSTs covered by a check: (\d+) \/ \1\./);
    expect(readFileSync(join(out, "report.junit"), "utf8")).toContain('name="driver.auth.revoked-stops: ');
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("CAP-DRV-5");
  });

  it("puts the wire exchanges of a failure in every report", async () => {
    const out = scratch();
    const r = await runCli([
      "driver",
      "--command",
      node("hammers-during-503.mjs"),
      "--only",
      "driver.backoff.outage",
      "--report",
      `json=${join(out, "r.json")}`,
      "--report",
      `markdown=${join(out, "r.md")}`,
    ]);
    expect(r.code).toBe(1);
    const failure = readReport(join(out, "r.json"))
      .checks.flatMap((c) => c.failures)
      .find((f) => f.requirement === "CAP-DRV-11");
    expect(failure?.wire?.length).toBeGreaterThan(5);
    expect(failure?.wire?.every((x) => x.status === 503 || x.status === 429)).toBe(true);
    expect(r.stdout).toMatch(
      /GET \/api\/agents\/runtime\/events\?\S* → 503 Retry-After: 2 .*\[fault layer: answered 503/,
    );
    expect(readFileSync(join(out, "r.md"), "utf8")).toContain("[fault layer: answered 429 Retry-After: 2]");
    expect(JSON.stringify(readReport(join(out, "r.json")))).not.toMatch(/cm_agent_[0-9a-f]{64}/);
  });
});
