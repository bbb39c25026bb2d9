/**
 * A self-contained HTML page (inline CSS, no scripts, no external requests): verdict and its level, the
 * checks short of SHOULD and those run again alone, the support table, every selected check with its
 * failures (a setup step's as "setup failed: <step>"; a flaky check's first run too), reproducers and —
 * with `--trace` — its HTTP exchanges. Checks the selection left out are one count.
 */
import type { Exchange } from "../http/exchange.js";
import { type CheckResult, type FailureReport, type RunReport, verdictText } from "../runner/results.js";
import { coverage, outcomeLabel, selection, supportRows } from "./support-table.js";
import { rerunNote, shortOfShouldLine } from "./terminal.js";
import { wireLines } from "./wire.js";

const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const css = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d1d1f}
h1{margin-bottom:.2rem}table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f7}code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f5f5f7;padding:.5rem;overflow:auto;white-space:pre-wrap;word-break:break-all}
.passed{color:#137333}.failed{color:#c5221f}.warned{color:#b06000}.incomplete{color:#8430ce}.skipped,.not-covered,.not-testable{color:#666}
.expected-failure{color:#007b83}.muted{color:#666}details{margin:.3rem 0}summary{cursor:pointer}`;

function exchange(x: Exchange): string {
  const req = `${x.method} ${x.url}\n${Object.entries(x.requestHeaders)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n")}${x.requestBody ? `\n\n${x.requestBody}` : ""}`;
  const res = `HTTP ${x.status} (${x.durationMs} ms)\n${Object.entries(x.responseHeaders)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n")}\n\n${x.responseBody}`;
  return `<pre>${esc(req)}</pre><pre>${esc(res)}</pre>`;
}

function failureHtml(c: CheckResult, f: FailureReport): string {
  return `<div><b class="${f.severity === "fail" && !f.expectedBy ? "failed" : "warned"}">${esc(f.requirement)}</b> ${esc(f.level)}${f.expectedBy ? " (expected by baseline)" : ""}: ${esc(f.requirementText)}
<p>${esc(f.message)}${f.setup !== undefined ? ` — the check stopped there, before judging ${esc(c.verifies.join(", "))}` : ""}</p>${f.expected !== undefined ? `<p>expected: <code>${esc(f.expected)}</code></p>` : ""}${f.actual !== undefined ? `<p>actual: <code>${esc(f.actual)}</code></p>` : ""}
${f.wire ? `<pre>${esc(wireLines(f.wire).join("\n"))}</pre>` : f.curl ? `<pre>${esc(f.curl)}</pre>` : ""}${f.exchange ? `<details><summary>exchange</summary>${exchange(f.exchange)}</details>` : ""}</div>`;
}

function check(c: CheckResult): string {
  const failures = c.failures.map((f) => failureHtml(c, f)).join("");
  const first = c.firstRun
    ? `<p class="warned">${esc(rerunNote(c))}</p>${c.flaky ? `<details><summary>first run</summary>${c.firstRun.failures.map((f) => failureHtml(c, f)).join("")}</details>` : ""}`
    : "";
  const trace = c.exchanges?.length
    ? `<details><summary>trace: ${c.exchanges.length} exchanges</summary>${c.exchanges.map(exchange).join("")}</details>`
    : "";
  const notes = c.notes.map((n) => `<p class="muted">${esc(n)}</p>`).join("");
  const reason = c.reason ? `<p class="muted">${esc(c.reason)}</p>` : "";
  return `<tr><td><code>${esc(c.id)}</code></td><td>${esc(c.title)}${reason}${notes}${first}${failures}${trace}</td><td class="${c.flaky ? "warned" : c.status}">${c.flaky ? `flaky (${c.status} when run again)` : c.status}</td><td>${c.verifies.map(esc).join(" ")}</td><td>${c.durationMs} ms</td></tr>`;
}

export function renderHtml(report: RunReport): string {
  const s = report.summary;
  const cov = coverage(report);
  const rows = supportRows(report)
    .map(
      (r) =>
        `<tr><td><code>${esc(r.id)}</code></td><td>${r.level}</td><td>${esc(r.feature ?? "")}</td><td class="${r.status}">${esc(outcomeLabel[r.status])}</td><td>${esc(r.text)}</td><td>${r.checks.map((c) => `<code>${esc(c)}</code>`).join(" ")}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CAP v1 conformance: ${esc(verdictText(s))}</title><style>${css}</style></head>
<body>
<h1>CAP v1 conformance: <span class="${s.exitCode === 0 ? "passed" : s.exitCode === 3 ? "incomplete" : "failed"}">${esc(verdictText(s))}</span></h1>
<p class="muted">${report.target.urls.map(esc).join(", ")} · ${esc(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · ${esc(report.tool.name)} ${esc(report.tool.version)} · exit code ${s.exitCode}</p>
<p>Features: ${esc(report.target.features.join(", ") || "none")} · lease ${report.target.leaseSeconds ?? "?"} s · maxAttempts ${report.target.maxAttempts ?? "?"} · trigger: ${report.target.trigger}</p>
<table><tr><th>checks</th><th>passed</th><th>failed</th><th>warnings</th><th>skipped</th><th>incomplete</th><th>expected failures</th><th>stale baseline</th></tr>
<tr><td>${s.checks}</td><td>${s.passed}</td><td>${s.failed}</td><td>${s.warned}</td><td>${s.skipped}</td><td>${s.incomplete}</td><td>${s.expectedFailures}</td><td>${s.staleBaseline}</td></tr></table>
${s.notSelected > 0 ? `<p class="muted">${s.notSelected} more checks not selected (${esc(selection(report))}).</p>` : ""}
${s.level === "MUST" ? `<p class="warned">${esc(shortOfShouldLine(report))}</p>` : ""}
${s.rerun.length > 0 ? `<p>Run again alone after an unexpected failure:</p><ul>${s.rerun.map((id) => `<li><code>${esc(id)}</code>${s.flaky.includes(id) ? ' <b class="warned">flaky</b>' : ""}: ${esc(rerunNote(report.checks.find((c) => c.id === id) as CheckResult))}</li>`).join("")}</ul>` : ""}
${report.notes.map((n) => `<p class="muted">note: ${esc(n)}</p>`).join("")}
${report.baseline.stale.map((e) => `<p class="failed">stale baseline entry (now passes; remove it): ${esc(e.check ?? e.requirement ?? "")} — ${esc(e.reason)}</p>`).join("")}
<h2>Checks</h2>
<table><tr><th>check</th><th>behaviour</th><th>outcome</th><th>verifies</th><th>time</th></tr>
${report.checks
  .filter((c) => c.selected !== false)
  .map(check)
  .join("\n")}
</table>
<h2>Support table</h2>
<p>Testable ${report.mode === "driver" ? "driver" : "kernel"} MUSTs covered by a check: ${cov.covered} / ${cov.total}.</p>
<table><tr><th>requirement</th><th>level</th><th>feature</th><th>outcome</th><th>text</th><th>checks</th></tr>
${rows}
</table>
</body></html>
`;
}
