/**
 * The benchmarks page: `docs/benchmarks/results.json` (validated against results.schema.json) drawn as SVG
 * bar charts at build time, one chart per group and plotted quantity, each bar against its goal; then a
 * table of every expected benchmark, measured or "not measured yet".
 *
 * Must never: draw a number that is not in the results file. A missing file means "not measured yet"
 * everywhere; a malformed file fails the build.
 */
import { existsSync, readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { escapeHtml } from "./layout.mjs";

/** Reads and validates the results file; `null` when it does not exist. Throws with every schema error. */
export function loadResults(resultsFile, schemaFile) {
  if (!existsSync(resultsFile)) return null;
  let data;
  try {
    data = JSON.parse(readFileSync(resultsFile, "utf8"));
  } catch (err) {
    throw new Error(`${resultsFile} is not valid JSON: ${err.message}`);
  }
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, "utf8")));
  if (!validate(data)) {
    const errs = validate.errors.map((e) => `  ${e.instancePath || "/"} ${e.message}`).join("\n");
    throw new Error(`${resultsFile} does not match ${schemaFile}:\n${errs}`);
  }
  const ids = new Set();
  for (const r of data.results) {
    if (ids.has(r.id)) throw new Error(`${resultsFile}: result id ${r.id} appears twice`);
    ids.add(r.id);
  }
  return data;
}

/** What a row plots: the ratio when its goal is about the ratio, the value otherwise. */
export function plotted(r) {
  if (r.goal?.of === "ratio" && typeof r.ratio === "number") {
    return { key: "ratio", unit: `× ${r.baseline?.name ?? "baseline"}`, value: r.ratio };
  }
  return { key: "value", unit: r.unit, value: r.value };
}

/** Whether a result meets its goal (`null` without one). */
export function meetsGoal(r) {
  if (!r.goal) return null;
  const v = r.goal.of === "ratio" ? r.ratio : r.value;
  if (typeof v !== "number") return false;
  return r.goal.op === ">=" ? v >= r.goal.target : v <= r.goal.target;
}

export function formatNumber(n) {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Splits results into charts: same group and same plotted unit. */
export function chartsOf(results) {
  const charts = new Map();
  for (const r of results) {
    const p = plotted(r);
    const key = `${r.group}\u0000${p.unit}`;
    if (!charts.has(key)) charts.set(key, { group: r.group, unit: p.unit, rows: [] });
    charts.get(key).rows.push({ result: r, value: p.value });
  }
  return [...charts.values()];
}

// Charts are loaded as <img>, which does not inherit the page's CSS, so each SVG carries its own.
const CHART_CSS = [
  "text{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;fill:#1f2937}",
  ".chart-title{font-size:15px;font-weight:600}.chart-unit{font-weight:400;fill:#6b7280}",
  ".label,.value{font-size:13px}.legend{font-size:12px;fill:#6b7280}",
  ".bar{fill:#64748b}.bar.pass{fill:#16a34a}.bar.fail{fill:#dc2626}",
  ".goal{stroke:#111827;stroke-width:2;stroke-dasharray:4 2}.axis{stroke:#9ca3af}",
].join("");

// Width of one character of the 13 px label font, on the wide side (DejaVu Sans, Chromium's default on
// Debian, measures about 6.8 px): labels are laid out without a browser, so they get room to spare.
const CHAR_W = 7.4;
const LABEL_MAX_W = 430;

/** Splits a label into lines that fit `maxChars`, at spaces (a word longer than a line stays whole). */
export function wrapLabel(text, maxChars) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** One horizontal bar chart as a standalone SVG string. Pure: same input, same bytes. */
export function barChartSvg({ title, unit, rows }) {
  const longest = Math.max(...rows.map((r) => r.result.name.length), 10);
  const labelW = Math.min(LABEL_MAX_W, Math.ceil(longest * CHAR_W) + 12);
  const maxChars = Math.floor((labelW - 12) / CHAR_W);
  const labels = rows.map((r) => wrapLabel(r.result.name, maxChars));
  const lineH = 16;
  const rowHs = labels.map((l) => Math.max(30, l.length * lineH + 12));
  const plotW = 420;
  const top = 34;
  const titleW = Math.ceil((title.length + unit.length + 3) * 8.6);
  const width = Math.max(labelW + plotW + 110, titleW);
  const bodyH = rowHs.reduce((a, b) => a + b, 0);
  const height = top + bodyH + 34;
  const goals = rows.map((r) => (r.result.goal ? r.result.goal.target : 0));
  const max = Math.max(...rows.map((r) => r.value), ...goals, 0) * 1.08 || 1;
  const x = (v) => labelW + (Math.max(v, 0) / max) * plotW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}" class="chart">`,
    `<title>${escapeHtml(title)} (${escapeHtml(unit)})</title>`,
    `<style>${CHART_CSS}</style>`,
    `<text x="0" y="18" class="chart-title">${escapeHtml(title)} <tspan class="chart-unit">(${escapeHtml(unit)})</tspan></text>`,
    `<line x1="${labelW}" y1="${top - 6}" x2="${labelW}" y2="${top + bodyH}" class="axis"/>`,
  ];
  let y = top;
  rows.forEach((row, i) => {
    const rowH = rowHs[i];
    const mid = y + rowH / 2;
    const ok = meetsGoal(row.result);
    const cls = ok === null ? "bar" : ok ? "bar pass" : "bar fail";
    const w = Math.max(x(row.value) - labelW, 1);
    const lines = labels[i];
    const firstY = mid + 5 - ((lines.length - 1) * lineH) / 2;
    const label =
      lines.length === 1
        ? escapeHtml(lines[0])
        : lines
            .map((l, n) => `<tspan x="${labelW - 8}" y="${firstY + n * lineH}">${escapeHtml(l)}</tspan>`)
            .join("");
    parts.push(
      `<text x="${labelW - 8}" y="${firstY}" class="label" text-anchor="end">${label}</text>`,
      `<rect x="${labelW}" y="${mid - 10}" width="${w.toFixed(1)}" height="20" class="${cls}" data-id="${escapeHtml(row.result.id)}"/>`,
      `<text x="${(labelW + w + 6).toFixed(1)}" y="${mid + 5}" class="value">${escapeHtml(formatNumber(row.value))}</text>`,
    );
    if (row.result.goal) {
      const gx = x(row.result.goal.target).toFixed(1);
      parts.push(
        `<line x1="${gx}" y1="${mid - 13}" x2="${gx}" y2="${mid + 13}" class="goal"><title>goal ${escapeHtml(row.result.goal.op)} ${escapeHtml(formatNumber(row.result.goal.target))}</title></line>`,
      );
    }
    y += rowH;
  });
  const legendY = top + bodyH + 22;
  parts.push(
    `<text x="${labelW}" y="${legendY}" class="legend">0</text>`,
    `<text x="${labelW + plotW}" y="${legendY}" class="legend" text-anchor="end">${escapeHtml(formatNumber(max))}</text>`,
  );
  if (rows.some((r) => r.result.goal)) {
    parts.push(
      `<line x1="${labelW + plotW + 20}" y1="${legendY - 10}" x2="${labelW + plotW + 20}" y2="${legendY + 2}" class="goal"/>`,
      `<text x="${labelW + plotW + 26}" y="${legendY}" class="legend">goal</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}

function goalText(goal) {
  if (!goal) return "";
  const of = goal.of === "ratio" ? "ratio " : "";
  return `${of}${goal.op} ${formatNumber(goal.target)}`;
}

/** The page body (after the prose of benchmarks.md). `charts` receives `[fileName, svg]` pairs to write. */
export function renderBenchmarks({ data, expected, resultsPath }) {
  const charts = [];
  const results = data?.results ?? [];
  const byId = new Map(results.map((r) => [r.id, r]));
  const skippedWhy = new Map((data?.skipped ?? []).flatMap((s) => s.ids.map((id) => [id, s.reason])));
  let html = "";
  if (!data) {
    html += `<p class="notice"><strong>Not measured yet.</strong> <code>${escapeHtml(resultsPath)}</code> is not in the repository; run <code>pnpm bench</code> and commit it. Every benchmark below is listed without a figure.</p>`;
  } else {
    const m = data.machine;
    if (data.valid === false)
      html += `<p class="notice"><strong>INVALID run — no ratios.</strong> ${escapeHtml(data.invalidReason ?? "its baseline was not a ceiling")}. The figures below are shown without a verdict; re-run <code>pnpm bench</code> on a quiet machine.</p>`;
    html += `<p class="meta">Measured ${escapeHtml(data.generatedAt)} with <code>${escapeHtml(data.command)}</code> on ${m.cpus} CPU${m.cpus > 1 ? "s" : ""}${m.cpuModel ? ` (${escapeHtml(m.cpuModel)})` : ""}, Node ${escapeHtml(m.node)}${m.os ? `, ${escapeHtml(m.os)}` : ""}${m.memoryGiB ? `, ${m.memoryGiB} GiB` : ""}. Charts are drawn from <code>${escapeHtml(resultsPath)}</code> when the site is built.</p>`;
    const judged = results.filter((r) => meetsGoal(r) !== null);
    const missed = judged.filter((r) => meetsGoal(r) === false);
    if (data.valid !== false && judged.length)
      html += `<p class="verdict"><strong>${judged.length - missed.length} of ${judged.length} goals met in this run.</strong>${missed.length ? ` Missed: ${missed.map((r) => `${escapeHtml(r.group)} — ${escapeHtml(r.name)}`).join("; ")}.` : ""}</p>`;
    chartsOf(results).forEach((c, i) => {
      const file = `chart-${i + 1}.svg`;
      charts.push([file, barChartSvg({ title: c.group, unit: c.unit, rows: c.rows })]);
      html += `<figure class="bench"><img src="benchmarks/${file}" alt="${escapeHtml(c.group)}: ${c.rows.map((r) => `${escapeHtml(r.result.name)} ${escapeHtml(formatNumber(r.value))}`).join("; ")}"><figcaption>${escapeHtml(c.group)} — ${escapeHtml(c.unit)}${c.rows.some((r) => r.result.goal) ? "; the tick marks the goal, green meets it, red misses it" : ""}.</figcaption></figure>`;
    });
  }
  const all = [...expected];
  for (const r of results) if (!expected.some((e) => e.id === r.id)) all.push(r);
  const rows = all
    .map((e) => {
      const r = byId.get(e.id);
      if (!r) {
        return `<tr class="unmeasured"><td>${escapeHtml(e.group)}</td><td>${escapeHtml(e.name)}</td><td colspan="3"><em>not measured yet</em>${skippedWhy.has(e.id) ? ` — skipped in the last run: ${escapeHtml(skippedWhy.get(e.id))}` : ""}</td><td>${escapeHtml(e.goal ?? "")}</td><td></td></tr>`;
      }
      const ok = meetsGoal(r);
      const base = r.baseline
        ? `${formatNumber(r.baseline.value)} ${escapeHtml(r.baseline.unit)} (${escapeHtml(r.baseline.name)})`
        : "";
      return `<tr><td>${escapeHtml(r.group)}</td><td>${escapeHtml(r.name)}</td><td class="num">${escapeHtml(formatNumber(r.value))} ${escapeHtml(r.unit)}</td><td>${base}</td><td class="num">${typeof r.ratio === "number" ? formatNumber(r.ratio) : ""}</td><td>${escapeHtml(goalText(r.goal))}</td><td>${ok === null ? "" : ok ? '<span class="pass">met</span>' : '<span class="fail">missed</span>'}</td></tr>`;
    })
    .join("\n");
  html += `<h2 id="all-results">All results</h2>
<div class="table-wrap"><table class="bench-table"><thead><tr><th>Group</th><th>Benchmark</th><th>Value</th><th>Baseline (same run)</th><th>Ratio</th><th>Goal</th><th></th></tr></thead><tbody>
${rows}
</tbody></table></div>`;
  return { html, charts, measured: results.length, missing: expected.filter((e) => !byId.has(e.id)).length };
}
