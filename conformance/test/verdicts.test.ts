/**
 * From check outcomes to what a user reads, as a table: given the results of a run (a setup step that
 * broke, checks the selection left out, checks that could not run), want the verdict and exit code, the
 * lines the terminal prints, and the entries of the JSON, JUnit and Markdown reports. Pure: no kernel.
 */
import { describe, expect, it } from "vitest";
import { parseBaseline } from "../src/baseline.js";
import { renderHtml } from "../src/reports/html.js";
import { renderJunit } from "../src/reports/junit.js";
import { renderMarkdown } from "../src/reports/markdown.js";
import { progress, renderFailures, renderSummary } from "../src/reports/terminal.js";
import { judge } from "../src/runner/judge.js";
import type { CheckResult, FailureReport, RunReport } from "../src/runner/results.js";
import { failure, manifest, result } from "./support/fake.js";

/** A failure recorded by a setup step of the check: it names the step's requirement, not the check's. */
const setupFailure = (requirement: string, step: string): FailureReport => ({
  ...failure(requirement),
  message: `setup failed: ${step}`,
  setup: step,
});

const notSelected = (id: string, verifies: string[]): CheckResult => ({
  ...result(id, "skipped", verifies),
  reason: "not selected by --only events.a",
  selected: false,
});

const shouldOnly = (r: CheckResult): CheckResult => ({ ...r, level: "SHOULD" });

interface Case {
  name: string;
  checks: CheckResult[];
  strict?: boolean;
  only?: string[];
  baseline?: string;
  want: {
    exit: 0 | 1 | 3;
    verdict: RunReport["summary"]["verdict"];
    counts?: Partial<RunReport["summary"]>;
    /** Requirement statuses of the support table. */
    requirements?: Record<string, string>;
    /** Substrings of the terminal output (progress lines, failures, summary). */
    printed?: string[];
    /** Substrings the terminal output must not contain. */
    notPrinted?: string[];
    junit?: string[];
    notJunit?: string[];
    markdown?: string[];
    html?: string[];
  };
}

const cases: Case[] = [
  {
    name: "a check whose setup step broke names the step's requirement and not its own",
    checks: [
      {
        ...result("leases.x", "failed", ["CAP-LEASE-7"], [setupFailure("CAP-EVT-1", "polling for events")]),
        reason: "setup failed: polling for events (CAP-EVT-1)",
        stoppedEarly: true,
      },
    ],
    want: {
      exit: 1,
      verdict: "not conformant",
      counts: { checks: 1, failed: 1, notSelected: 0 },
      requirements: { "CAP-EVT-1": "failed", "CAP-LEASE-7": "incomplete" },
      printed: [
        "✗ leases.x 1 ms  setup failed: CAP-EVT-1",
        "   CAP-EVT-1 MUST: text",
        "     setup failed: polling for events",
        "     (a step leases.x relies on; it stopped there, before judging CAP-LEASE-7)",
        "1 check: 0 passed, 1 failed",
        "— not conformant (exit 1)",
      ],
      notPrinted: ["CAP-LEASE-7 MUST"],
      junit: [
        '<failure type="CAP-EVT-1" message="setup failed: polling for events (CAP-EVT-1)">',
        "before leases.x judged its own requirements",
      ],
      html: ["setup failed: polling for events — the check stopped there, before judging CAP-LEASE-7"],
      markdown: [
        "- **CAP-EVT-1** (MUST): text",
        "  - setup failed: polling for events — the check stopped there, before judging CAP-LEASE-7",
        "| CAP-LEASE-7 | MUST | renew | ❔ incomplete | `leases.x` |",
        "| CAP-EVT-1 | MUST |  | ❌ failed | `leases.x` |",
      ],
    },
  },
  {
    name: "a baseline entry for the step's requirement expects the setup failure",
    checks: [
      {
        ...result("leases.x", "failed", ["CAP-LEASE-7"], [setupFailure("CAP-EVT-1", "polling for events")]),
        stoppedEarly: true,
      },
    ],
    baseline: "- requirement: CAP-EVT-1\n  reason: polls answer a production shape",
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { expectedFailures: 1, failed: 0 },
      requirements: { "CAP-EVT-1": "expected-failure", "CAP-LEASE-7": "incomplete" },
    },
  },
  {
    name: "checks --only left out are one count, never a line, and change nothing else",
    only: ["events.a"],
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      notSelected("events.b", ["CAP-EVT-7"]),
      notSelected("renew.c", ["CAP-LEASE-7"]),
    ],
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { checks: 1, passed: 1, skipped: 0, notSelected: 2 },
      requirements: { "CAP-EVT-1": "passed", "CAP-EVT-7": "skipped", "CAP-LEASE-7": "skipped" },
      printed: [
        "[1/1] ✓ events.a 1 ms",
        "2 checks not selected (--only events.a)",
        "1 check: 1 passed, 0 failed, 0 warnings, 0 skipped, 0 incomplete",
      ],
      notPrinted: ["events.b", "renew.c", "not selected by --only"],
      junit: ['tests="1" failures="0" errors="0" skipped="0"'],
      markdown: ["2 more checks not selected (--only events.a)."],
      html: [
        "2 more checks not selected (--only events.a).",
        "<tr><td><code>events.a</code></td><td>events.a",
      ],
    },
  },
  {
    name: "a selected check verifying a MUST ended incomplete: the run is incomplete",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      { ...result("renew.c", "incomplete", ["CAP-LEASE-7"]), reason: "the fixture has no revokedToken" },
    ],
    want: {
      exit: 3,
      verdict: "incomplete",
      counts: { incomplete: 1 },
      printed: [
        "? renew.c 1 ms  the fixture has no revokedToken",
        "   incomplete: the fixture has no revokedToken\n",
        "— incomplete (exit 3)",
      ],
    },
  },
  {
    name: "a check that could not run in this mode (driver --wait) counts as incomplete",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      {
        ...result("renew.c", "incomplete", ["CAP-LEASE-7"]),
        reason: "needs the driver started anew with a fresh /info: run with --command",
      },
    ],
    want: { exit: 3, verdict: "incomplete" },
  },
  {
    name: "only a SHOULD-only check ended incomplete: conformant, and it says so",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      { ...shouldOnly(result("events.b", "incomplete", ["CAP-EVT-7"])), reason: "no event arrived" },
    ],
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { incomplete: 1 },
      printed: ["(verifies only SHOULDs: the verdict does not wait for it without --strict)"],
    },
  },
  {
    name: "a SHOULD-only check ended incomplete under --strict: incomplete",
    strict: true,
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      { ...shouldOnly(result("events.b", "incomplete", ["CAP-EVT-7"])), reason: "no event arrived" },
    ],
    want: { exit: 3, verdict: "incomplete" },
  },
  {
    name: "a check skipped because its optional feature is not advertised is not incomplete",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      {
        ...result("renew.c", "skipped", ["CAP-LEASE-7"]),
        reason:
          'the kernel does not advertise "renew" in /info features and the configuration does not claim it',
      },
    ],
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { skipped: 1 },
      printed: ["- renew.c 1 ms  the kernel does not advertise", "— conformant (MUST + SHOULD) (exit 0)"],
    },
  },
  {
    name: "a failure beats an incomplete check",
    checks: [
      result("events.a", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")]),
      result("renew.c", "incomplete", ["CAP-LEASE-7"]),
    ],
    want: { exit: 1, verdict: "not conformant", counts: { level: null } },
  },
  {
    name: "every check passed, SHOULDs included: conformant at MUST + SHOULD",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      shouldOnly(result("events.b", "passed", ["CAP-EVT-7"])),
    ],
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { level: "MUST + SHOULD", shortOfShould: [] },
      printed: [
        "2 checks: 2 passed, 0 failed, 0 warnings, 0 skipped, 0 incomplete in 1.0 s — conformant (MUST + SHOULD) (exit 0)",
      ],
      notPrinted: ["short of SHOULD"],
      markdown: ["# CAP v1 conformance: conformant (MUST + SHOULD)"],
      html: ['CAP v1 conformance: <span class="passed">conformant (MUST + SHOULD)</span>'],
    },
  },
  {
    name: "a SHOULD warned: conformant at MUST, naming the check and the SHOULD it fell short of",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      shouldOnly(result("events.b", "warned", ["CAP-EVT-7"], [failure("CAP-EVT-7", "warn")])),
    ],
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { level: "MUST", shortOfShould: ["events.b"] },
      printed: [
        "short of SHOULD: events.b (CAP-EVT-7); --strict fails them\n",
        "— conformant (MUST) (exit 0)",
      ],
      markdown: ["# CAP v1 conformance: conformant (MUST)", "short of SHOULD: events.b (CAP-EVT-7)"],
      junit: [
        '<property name="cap-conformance.verdict" value="conformant (MUST)"/>',
        '<property name="cap-conformance.short-of-should" value="events.b"/>',
      ],
      html: ["conformant (MUST)</span>", "short of SHOULD: events.b (CAP-EVT-7)"],
    },
  },
  {
    name: "the same SHOULD under --strict: not conformant, no level",
    strict: true,
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      shouldOnly(result("events.b", "warned", ["CAP-EVT-7"], [failure("CAP-EVT-7", "warn")])),
    ],
    want: {
      exit: 1,
      verdict: "not conformant",
      counts: { level: null },
      printed: ["— not conformant (exit 1)"],
    },
  },
  {
    name: "a SHOULD-only check that reached no verdict keeps the run at MUST",
    checks: [
      result("events.a", "passed", ["CAP-EVT-1"]),
      { ...shouldOnly(result("events.b", "incomplete", ["CAP-EVT-7"])), reason: "no event arrived" },
    ],
    want: { exit: 0, verdict: "conformant", counts: { level: "MUST", shortOfShould: ["events.b"] } },
  },
  {
    name: "conformant only because the baseline expects a MUST's failure: the level says so",
    checks: [result("events.a", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")])],
    baseline: "- check: events.a\n  reason: known since 2.1",
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { level: "baseline" },
      printed: ["— conformant (baseline) (exit 0)"],
      markdown: ["# CAP v1 conformance: conformant (baseline)"],
    },
  },
  {
    name: "a check that failed once and passed when run again alone is flaky: named, reported, not a failure",
    checks: [
      {
        ...result("events.a", "passed", ["CAP-EVT-1"]),
        firstRun: { status: "failed", durationMs: 3, failures: [failure("CAP-EVT-1")] },
        flaky: true,
      },
    ],
    want: {
      exit: 0,
      verdict: "conformant",
      counts: { passed: 1, failed: 0, rerun: ["events.a"], flaky: ["events.a"], level: "MUST + SHOULD" },
      printed: [
        "↻ events.a 1 ms  flaky: its first run failed CAP-EVT-1; run again alone, it passed",
        "1) events.a — events.a [flaky, passed when run again]",
        "   CAP-EVT-1 MUST: text\n     CAP-EVT-1 broke",
        "— conformant (MUST + SHOULD) (exit 0); flaky, failed once and not when run again alone: events.a",
      ],
      junit: [
        'tests="1" failures="0"',
        '<property name="cap-conformance.flaky" value="events.a"/>',
        '<flakyFailure type="CAP-EVT-1" message="first run: CAP-EVT-1: CAP-EVT-1 broke">',
        "<system-out>flaky: its first run failed CAP-EVT-1; run again alone, it passed</system-out>",
      ],
      notJunit: ["<failure "],
      markdown: ["- `events.a` — **flaky**: flaky: its first run failed CAP-EVT-1", "First run:"],
      html: ['<b class="warned">flaky</b>', "flaky (passed when run again)"],
    },
  },
  {
    name: "a check that failed again when run alone fails, and the summary says it was run twice",
    checks: [
      {
        ...result("events.a", "failed", ["CAP-EVT-1"], [failure("CAP-EVT-1")]),
        firstRun: { status: "failed", durationMs: 3, failures: [failure("CAP-EVT-1")] },
      },
    ],
    want: {
      exit: 1,
      verdict: "not conformant",
      counts: { failed: 1, rerun: ["events.a"], flaky: [] },
      printed: [
        "✗ events.a 1 ms  run again alone: failed again (first run failed CAP-EVT-1)",
        "— not conformant (exit 1); failed again when run alone: events.a",
      ],
      junit: [
        '<failure type="CAP-EVT-1" message="CAP-EVT-1: CAP-EVT-1 broke">',
        '<rerunFailure type="CAP-EVT-1" message="first run: CAP-EVT-1: CAP-EVT-1 broke">',
      ],
      markdown: ["- `events.a`: run again alone: failed again (first run failed CAP-EVT-1)"],
    },
  },
];

function reportOf(c: Case): { report: RunReport; terminal: string } {
  const baseline = c.baseline ? parseBaseline(c.baseline, "expected-failures.yaml") : undefined;
  const checks = structuredClone(c.checks);
  const judged = judge(checks, manifest, baseline, c.strict ?? false);
  const report: RunReport = {
    reportVersion: 1,
    tool: { name: "cap-conformance", version: "1.0.0" },
    runId: "r1",
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:01.000Z",
    durationMs: 1000,
    target: {
      urls: ["http://k"],
      info: null,
      features: [],
      claimed: [],
      leaseSeconds: 1,
      maxAttempts: 3,
      timeScale: 1,
      trigger: "protocol",
    },
    settings: { only: c.only ?? [], skip: [], level: "should", strict: c.strict ?? false, trace: false },
    ...judged,
    canary: { hits: [] },
    notes: [],
  };
  // What the terminal shows: progress lines for what was reported as it ran, then failures and summary.
  const out: string[] = [];
  const hooks = progress({ write: (s) => out.push(s), isTTY: false });
  const ran = report.checks.filter((r) => r.selected !== false);
  hooks.onStart?.(ran.length, report.target);
  for (const r of ran) hooks.onResult?.(r);
  for (const r of ran) if (r.firstRun) hooks.onRerun?.(r);
  out.push(renderFailures(report), renderSummary(report));
  return { report, terminal: out.join("") };
}

describe("from check outcomes to the verdict and what is printed", () => {
  for (const c of cases)
    it(c.name, () => {
      const { report, terminal } = reportOf(c);
      expect(report.summary.exitCode).toBe(c.want.exit);
      expect(report.summary.verdict).toBe(c.want.verdict);
      if (c.want.counts) expect(report.summary).toMatchObject(c.want.counts);
      for (const [id, status] of Object.entries(c.want.requirements ?? {}))
        expect(report.requirements.find((r) => r.id === id)?.status, id).toBe(status);
      for (const s of c.want.printed ?? []) expect(terminal).toContain(s);
      for (const s of c.want.notPrinted ?? []) expect(terminal).not.toContain(s);
      const junit = renderJunit(report);
      for (const s of c.want.junit ?? []) expect(junit).toContain(s);
      for (const s of c.want.notJunit ?? []) expect(junit).not.toContain(s);
      const markdown = renderMarkdown(report);
      for (const s of c.want.markdown ?? []) expect(markdown).toContain(s);
      const html = renderHtml(report);
      for (const s of c.want.html ?? []) expect(html).toContain(s);
      // Checks left out are kept in the JSON report, marked, and are no test case of the JUnit report.
      for (const r of report.checks.filter((x) => x.selected === false)) {
        expect(r.status).toBe("skipped");
        expect(junit).not.toContain(r.id);
        expect(markdown).not.toContain(`\`${r.id}\` —`);
        expect(html).not.toContain(`<tr><td><code>${r.id}</code></td><td>${r.title}`);
      }
    });
});
