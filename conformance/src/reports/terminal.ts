/**
 * Terminal output: one line per check as it finishes (progress; a check run again alone gets a second
 * line), then every failure in full (expected vs actual, the requirement's text, a curl reproducer; a
 * flaky check's first run too), then the summary: the checks short of SHOULD, and the verdict line with its
 * level, the exit code and the checks that were run again. Checks the selection left out get one count in
 * the summary, never a line each. Colour only on a TTY; plain text otherwise, so CI logs stay readable.
 */

import {
  blocksVerdict,
  type CheckResult,
  type FailureReport,
  type RunReport,
  verdictText,
} from "../runner/results.js";
import type { RunHooks } from "../runner/run-suite.js";
import { toolVersion } from "../version.js";
import { selection } from "./support-table.js";
import { wireLines } from "./wire.js";

export interface Out {
  write(text: string): void;
  isTTY?: boolean;
}

const paint = (tty: boolean | undefined, code: number, s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);

const marks: Record<CheckResult["status"], [string, number]> = {
  passed: ["✓", 32],
  failed: ["✗", 31],
  warned: ["!", 33],
  skipped: ["-", 90],
  incomplete: ["?", 35],
  "expected-failure": ["x", 36],
};

export function progress(out: Out): RunHooks {
  let total = 0;
  let done = 0;
  return {
    onStart(n, target) {
      total = n;
      out.write(header({ tool: { name: "cap-conformance", version: toolVersion }, target }));
    },
    onResult(r) {
      done++;
      const [mark, color] = marks[r.status];
      const width = String(total).length;
      const counter = `[${String(done).padStart(width)}/${total}]`;
      const why = r.status === "skipped" || r.status === "incomplete" ? `  ${r.reason ?? ""}` : "";
      const ids = r.failures.length > 0 ? `  ${blamed(r.failures).join(" ")}` : "";
      out.write(
        `${paint(out.isTTY, 90, counter)} ${paint(out.isTTY, color, mark)} ${r.id} ${paint(out.isTTY, 90, `${r.durationMs} ms`)}${ids}${paint(out.isTTY, 90, why.slice(0, 160))}\n`,
      );
    },
    onRerun(r) {
      const [mark, color] = r.flaky ? ["↻", 33] : marks[r.status];
      out.write(
        `${" ".repeat(String(total).length * 2 + 3)} ${paint(out.isTTY, color, mark)} ${r.id} ${paint(out.isTTY, 90, `${r.durationMs} ms`)}  ${rerunNote(r)}\n`,
      );
    },
  };
}

/** What running a check again alone showed, in a few words. */
export function rerunNote(r: CheckResult): string {
  const first = r.firstRun;
  if (!first) return "";
  const was = `${first.status}${first.failures.length > 0 ? ` ${blamed(first.failures).join(" ")}` : ""}`;
  return r.flaky
    ? `flaky: its first run ${was}; run again alone, it ${r.status}`
    : `run again alone: ${r.status} again (first run ${was})`;
}

const checks = (n: number) => `${n} ${n === 1 ? "check" : "checks"}`;

/** The requirement ids a check's failures name, a setup step's as "setup failed: CAP-MSG-1". */
const blamed = (failures: readonly FailureReport[]) => [
  ...new Set(failures.map((f) => (f.setup !== undefined ? `setup failed: ${f.requirement}` : f.requirement))),
];

export function header(report: Pick<RunReport, "target" | "tool">): string {
  const t = report.target;
  const lease = t.leaseSeconds === null ? "unknown" : `${t.leaseSeconds} s`;
  return `${report.tool.name} ${report.tool.version} → ${t.urls.join(", ")} (lease ${lease}, maxAttempts ${t.maxAttempts ?? "unknown"}, features: ${t.features.join(", ") || "none"})\n`;
}

function failureLines(c: CheckResult, f: FailureReport, tty: boolean | undefined): string[] {
  const lines: string[] = [];
  const tag = f.expectedBy ? " (expected by baseline)" : f.severity === "warn" ? " (warning)" : "";
  lines.push(
    `   ${paint(tty, f.severity === "fail" ? 31 : 33, f.requirement)} ${f.level}${tag}: ${f.requirementText}`,
  );
  lines.push(`     ${f.message}`);
  if (f.setup !== undefined)
    lines.push(`     (a step ${c.id} relies on; it stopped there, before judging ${c.verifies.join(", ")})`);
  if (f.expected !== undefined) lines.push(`     expected: ${f.expected.slice(0, 400)}`);
  if (f.actual !== undefined) lines.push(`     actual:   ${f.actual.slice(0, 400)}`);
  if (f.wire) {
    lines.push("     wire:");
    for (const l of wireLines(f.wire, 12)) lines.push(`       ${l}`);
  } else if (f.curl)
    lines.push(`     reproduce: ${f.curl.length > 600 ? `${f.curl.slice(0, 600)}…` : f.curl}`);
  return lines;
}

export function renderFailures(report: RunReport, tty?: boolean): string {
  const lines: string[] = [];
  const bad = report.checks.filter(
    (c) => c.selected !== false && (c.failures.length > 0 || c.status === "incomplete" || c.firstRun),
  );
  if (bad.length === 0) return "";
  lines.push("", paint(tty, 1, "Failures and problems"));
  bad.forEach((c, i) => {
    lines.push(
      "",
      `${i + 1}) ${c.id} — ${c.title} [${c.flaky ? `flaky, ${c.status} when run again` : c.status}]`,
    );
    if (c.firstRun) {
      lines.push(`   ${rerunNote(c)}`);
      if (c.flaky) {
        if (c.firstRun.reason) lines.push(`   first run: ${c.firstRun.reason}`);
        for (const f of c.firstRun.failures) lines.push(...failureLines(c, f, tty));
        if (c.failures.length === 0) return;
        lines.push("   when run again:");
      }
    }
    if (c.status === "incomplete")
      lines.push(
        `   incomplete: ${c.reason ?? ""}${blocksVerdict(c, report.settings.strict) ? "" : " (verifies only SHOULDs: the verdict does not wait for it without --strict)"}`,
      );
    if (c.status === "expected-failure") {
      for (const id of new Set(c.failures.map((f) => f.requirement)))
        lines.push(
          `   ${id}: ${c.failures.filter((f) => f.requirement === id).length} failure(s) expected by the baseline (${c.failures.find((f) => f.requirement === id)?.expectedBy ?? ""})`,
        );
      return;
    }
    for (const f of c.failures) lines.push(...failureLines(c, f, tty));
  });
  return `${lines.join("\n")}\n`;
}

export function renderSummary(report: RunReport, tty?: boolean): string {
  const s = report.summary;
  const lines = [""];
  for (const n of report.notes) lines.push(`note: ${n}`);
  for (const e of report.baseline.stale)
    lines.push(
      paint(
        tty,
        31,
        `stale baseline entry (now passes; remove it): ${e.check ?? e.requirement} — ${e.reason}`,
      ),
    );
  if (report.canary.hits.length > 0) lines.push(paint(tty, 31, `canary hits: ${report.canary.hits.length}`));
  const parts = [
    `${s.passed} passed`,
    `${s.failed} failed`,
    `${s.warned} warnings`,
    `${s.skipped} skipped`,
    `${s.incomplete} incomplete`,
    ...(s.expectedFailures > 0 ? [`${s.expectedFailures} expected failures`] : []),
  ];
  if (s.notSelected > 0) lines.push(`${checks(s.notSelected)} not selected (${selection(report)})`);
  if (s.level === "MUST") lines.push(paint(tty, 33, shortOfShouldLine(report)));
  const color = s.exitCode === 0 ? 32 : s.exitCode === 3 ? 35 : 31;
  lines.push(
    paint(
      tty,
      color,
      `${checks(s.checks)}: ${parts.join(", ")} in ${(report.durationMs / 1000).toFixed(1)} s — ${verdictText(s)} (exit ${s.exitCode})${rerunSummary(report)}`,
    ),
  );
  return `${lines.join("\n")}\n`;
}

/** Why a conformant run is `MUST` and not `MUST + SHOULD`: the checks short of it, with their SHOULD ids. */
export function shortOfShouldLine(report: RunReport): string {
  const s = report.summary;
  const named = s.shortOfShould.map((id) => {
    const c = report.checks.find((x) => x.id === id);
    const ids = [
      ...new Set((c?.failures ?? []).filter((f) => f.level === "SHOULD").map((f) => f.requirement)),
    ];
    return `${id} (${ids.length > 0 ? ids.join(", ") : (c?.status ?? "")})`;
  });
  const why = [
    ...(named.length > 0 ? [`short of SHOULD: ${named.join(", ")}`] : []),
    ...(report.settings.level === "must" ? ["SHOULD checks not selected (--level must)"] : []),
  ].join("; ");
  const sdk = report.mode === "driver" ? " (MUST + SHOULD, the level a published SDK should meet)" : "";
  return `${why}; --strict fails them${sdk}`;
}

/** The checks run again alone, for the end of the verdict line: the flaky ones and the ones that failed twice. */
export function rerunSummary(report: RunReport): string {
  const s = report.summary;
  const twice = s.rerun.filter((id) => !s.flaky.includes(id));
  return [
    ...(s.flaky.length > 0
      ? [`; flaky, failed once and not when run again alone: ${s.flaky.join(", ")}`]
      : []),
    ...(twice.length > 0 ? [`; failed again when run alone: ${twice.join(", ")}`] : []),
  ].join("");
}
