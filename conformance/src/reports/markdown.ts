/**
 * The Markdown summary: verdict and its level, counts (checks left out by the selection as one number),
 * the checks short of SHOULD and those run again alone, the support table, then each failure with its
 * reproducer — a setup step's as "setup failed: <step>" under the requirement that defines the step, a
 * flaky check's first run as well.
 */
import type { FailureReport, RunReport } from "../runner/results.js";
import { verdictText } from "../runner/results.js";
import { coverage, outcomeLabel, selection, supportRows } from "./support-table.js";
import { rerunNote, shortOfShouldLine } from "./terminal.js";
import { wireLines } from "./wire.js";

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const fence = (s: string) => `\`\`\`\n${s.replace(/```/g, "ʼʼʼ")}\n\`\`\``;

export function renderMarkdown(report: RunReport): string {
  const s = report.summary;
  const cov = coverage(report);
  const out: string[] = [
    `# CAP v1 ${report.mode === "driver" ? "driver " : ""}conformance: ${verdictText(s)}`,
    "",
    ...(report.mode === "driver"
      ? [`Driver \`${report.driver?.command ?? "(started by hand, --wait)"}\``, ""]
      : []),
    `${report.mode === "driver" ? "Played kernel" : "Kernel"} ${report.target.urls.map((u) => `\`${u}\``).join(", ")} · ${report.startedAt} · ${(report.durationMs / 1000).toFixed(1)} s · ${report.tool.name} ${report.tool.version} · exit code ${s.exitCode}`,
    "",
    `Features: ${report.target.features.join(", ") || "none"} · lease ${report.target.leaseSeconds ?? "?"} s · maxAttempts ${report.target.maxAttempts ?? "?"} · trigger: ${report.target.trigger}`,
    "",
    "| checks | passed | failed | warnings | skipped | incomplete | expected failures | stale baseline |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| ${s.checks} | ${s.passed} | ${s.failed} | ${s.warned} | ${s.skipped} | ${s.incomplete} | ${s.expectedFailures} | ${s.staleBaseline} |`,
    "",
    ...(s.notSelected > 0 ? [`${s.notSelected} more checks not selected (${selection(report)}).`, ""] : []),
    ...(s.level === "MUST" ? [`${cell(shortOfShouldLine(report))}.`, ""] : []),
    ...(s.rerun.length > 0
      ? [
          "Run again alone after an unexpected failure:",
          "",
          ...s.rerun.map((id) => {
            const c = report.checks.find((x) => x.id === id);
            return `- \`${id}\`${c?.flaky ? " — **flaky**" : ""}: ${c ? cell(rerunNote(c)) : ""}`;
          }),
          "",
        ]
      : []),
    "## Support table",
    "",
    `Testable ${report.mode === "driver" ? "driver" : "kernel"} MUSTs covered by a check: ${cov.covered} / ${cov.total}.`,
    "",
    "| requirement | level | feature | outcome | checks |",
    "| --- | --- | --- | --- | --- |",
    ...supportRows(report).map(
      (r) =>
        `| ${r.id} | ${r.level} | ${r.feature ?? ""} | ${outcomeLabel[r.status]} | ${r.checks.map((c) => `\`${c}\``).join(", ")} |`,
    ),
  ];
  const bad = report.checks.filter(
    (c) => c.selected !== false && (c.failures.length > 0 || c.status === "incomplete" || c.flaky),
  );
  if (bad.length > 0) out.push("", "## Failures and problems");
  const failure = (verifies: string[], f: FailureReport) => {
    out.push(
      "",
      `- **${f.requirement}** (${f.level}${f.expectedBy ? ", expected by baseline" : ""}): ${f.requirementText}`,
    );
    out.push(
      `  - ${f.message}${f.setup !== undefined ? ` — the check stopped there, before judging ${verifies.join(", ")}` : ""}`,
    );
    if (f.expected !== undefined) out.push(`  - expected: \`${cell(f.expected.slice(0, 300))}\``);
    if (f.actual !== undefined) out.push(`  - actual: \`${cell(f.actual.slice(0, 300))}\``);
    if (f.wire) out.push("", fence(wireLines(f.wire).join("\n")));
    else if (f.curl) out.push("", fence(f.curl.slice(0, 2000)));
  };
  for (const c of bad) {
    out.push("", `### \`${c.id}\` — ${cell(c.title)} (${c.flaky ? "flaky" : c.status})`);
    if (c.firstRun) out.push("", cell(rerunNote(c)));
    if (c.flaky) {
      out.push("", "First run:");
      for (const f of c.firstRun?.failures ?? []) failure(c.verifies, f);
      if (c.failures.length > 0) out.push("", "When run again:");
    }
    if (c.status === "incomplete") out.push("", `Incomplete: ${c.reason ?? ""}`);
    for (const f of c.failures) failure(c.verifies, f);
  }
  if (report.baseline.stale.length > 0) {
    out.push("", "## Stale baseline entries (they pass now; remove them)", "");
    for (const e of report.baseline.stale) out.push(`- ${e.check ?? e.requirement}: ${e.reason}`);
  }
  return `${out.join("\n")}\n`;
}
