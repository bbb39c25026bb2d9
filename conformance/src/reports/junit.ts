/**
 * JUnit XML: one testsuite per family, one testcase per selected check (checks `--only`/`--skip`/`--level`
 * left out are not test cases); failures carry the requirement and the reproducer, a setup step's as
 * "setup failed: <step> (CAP-…)". Every testsuite carries the run's verdict with its level, and the checks
 * short of SHOULD, run again or flaky, as properties. A check run again alone carries its other run as Maven Surefire's
 * rerun elements, which CI servers read: `flakyFailure` when the second run passed (the test case passes),
 * `rerunFailure` beside the `failure` when it failed twice.
 */
import { type CheckResult, type FailureReport, type RunReport, verdictText } from "../runner/results.js";
import { rerunNote } from "./terminal.js";
import { wireLines } from "./wire.js";

/** XML 1.0 cannot carry most control characters, even escaped: drop them. */
const printable = (s: string) =>
  [...s].filter((ch) => ch.charCodeAt(0) >= 0x20 || ch === "\t" || ch === "\n" || ch === "\r").join("");

export const xml = (s: string) =>
  printable(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function detailOf(c: CheckResult, f: FailureReport): string {
  return [
    `${f.requirement} (${f.level}): ${f.requirementText}`,
    f.setup !== undefined
      ? `${f.message} (${f.requirement}), before ${c.id} judged its own requirements`
      : f.message,
    ...(f.expected !== undefined ? [`expected: ${f.expected}`] : []),
    ...(f.actual !== undefined ? [`actual: ${f.actual}`] : []),
    ...(f.wire ? ["wire:", ...wireLines(f.wire)] : f.curl ? [`reproduce: ${f.curl}`] : []),
    ...(f.expectedBy ? [`expected by baseline: ${f.expectedBy}`] : []),
  ].join("\n");
}

const messageOf = (f: FailureReport) =>
  f.setup !== undefined ? `${f.message} (${f.requirement})` : `${f.requirement}: ${f.message}`;

/** The other run of a check run again alone, as Surefire writes reruns. */
function rerunElements(c: CheckResult): string[] {
  const first = c.firstRun;
  if (!first) return [];
  const tag = c.flaky ? "flakyFailure" : "rerunFailure";
  const failing = first.failures.filter((f) => !f.expectedBy);
  const out = failing.map(
    (f) =>
      `      <${tag} type="${xml(f.requirement)}" message="${xml(`first run: ${messageOf(f)}`)}">${xml(detailOf(c, f))}</${tag}>`,
  );
  if (failing.length === 0)
    out.push(
      `      <${tag} type="${xml(first.status)}" message="${xml(`first run: ${first.reason ?? first.status}`)}"/>`,
    );
  out.push(`      <system-out>${xml(rerunNote(c))}</system-out>`);
  return out;
}

function testcase(c: CheckResult): string {
  const head = `    <testcase classname="cap.${xml(c.family)}" name="${xml(c.id)}: ${xml(c.title)}" time="${(c.durationMs / 1000).toFixed(3)}">`;
  const body: string[] = [];
  if (c.status === "skipped") body.push(`      <skipped message="${xml(c.reason ?? "")}"/>`);
  if (c.status === "incomplete")
    body.push(`      <error type="incomplete" message="${xml(c.reason ?? "")}"/>`);
  for (const f of c.failures) {
    const detail = detailOf(c, f);
    const tag = f.expectedBy || f.severity === "warn" ? "system-out" : "failure";
    if (tag === "failure")
      body.push(
        `      <failure type="${xml(f.requirement)}" message="${xml(messageOf(f))}">${xml(detail)}</failure>`,
      );
    else body.push(`      <system-out>${xml(detail)}</system-out>`);
  }
  body.push(...rerunElements(c));
  return body.length === 0 ? `${head}</testcase>` : `${head}\n${body.join("\n")}\n    </testcase>`;
}

/** The run's verdict, its level and the checks run again, as properties of every testsuite. */
function properties(report: RunReport): string {
  const s = report.summary;
  const props: [string, string][] = [
    ["cap-conformance.verdict", verdictText(s)],
    ["cap-conformance.level", s.level ?? "none"],
    ...(s.shortOfShould.length > 0
      ? [["cap-conformance.short-of-should", s.shortOfShould.join(" ")] as [string, string]]
      : []),
    ...(s.rerun.length > 0 ? [["cap-conformance.rerun", s.rerun.join(" ")] as [string, string]] : []),
    ...(s.flaky.length > 0 ? [["cap-conformance.flaky", s.flaky.join(" ")] as [string, string]] : []),
  ];
  return `    <properties>\n${props.map(([k, v]) => `      <property name="${xml(k)}" value="${xml(v)}"/>`).join("\n")}\n    </properties>\n`;
}

export function renderJunit(report: RunReport): string {
  const selected = report.checks.filter((c) => c.selected !== false);
  const families = [...new Set(selected.map((c) => c.family))];
  const props = properties(report);
  const suites = families.map((family) => {
    const cs = selected.filter((c) => c.family === family);
    const failures = cs.filter((c) => c.status === "failed").length;
    const errors = cs.filter((c) => c.status === "incomplete").length;
    const skipped = cs.filter((c) => c.status === "skipped").length;
    const time = cs.reduce((t, c) => t + c.durationMs, 0) / 1000;
    return `  <testsuite name="cap-conformance.${xml(family)}" tests="${cs.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time.toFixed(3)}">\n${props}${cs.map(testcase).join("\n")}\n  </testsuite>`;
  });
  const s = report.summary;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="cap-conformance" tests="${s.checks}" failures="${s.failed}" errors="${s.incomplete}" skipped="${s.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n${suites.join("\n")}\n</testsuites>\n`;
}
