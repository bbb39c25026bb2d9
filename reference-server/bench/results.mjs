/**
 * The results file (`docs/benchmarks/results.json`, shape in docs/benchmarks/results.schema.json and at the
 * top of docs/benchmarks.md) and the figures table inside docs/benchmarks.md, both written from the same
 * in-memory report so the docs can only show what this run measured.
 *
 * Ratios are filled in at the end: each throughput figure against the Fastify hello-world measured right
 * before and right after it in the same run (a shared machine drifts; neighbours drift least), so every
 * ratio compares figures from one run on one machine.
 * Must never write a number for something that was not measured: skipped figures are listed under
 * `skipped` with the reason, and have no entry in `results`.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { compare } from "./comparisons.mjs";
import { MIN_SERVER_CORES } from "./scenarios/baseline.mjs";
import { round } from "./stats.mjs";

export const BASELINE_ID = "fastify-hello-post";
export const BASELINE_NAME = "Fastify hello-world POST";

export function createReport({ command }) {
  const results = [];
  const skipped = [];
  const baselines = [];
  let calibration = null;
  const loadAtStart = loadavg().map((n) => round(n, 2));
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

  return {
    /** A measured figure; `relative: [i, j]` gets the mean of those baseline measurements and a ratio. */
    add(...rows) {
      results.push(...rows);
    },
    skip(ids, reason) {
      skipped.push({ ids, reason });
    },
    /** Records the generator's calibration against autocannon (calibrate.mjs). */
    setCalibration(c) {
      calibration = c;
    },
    /** Records one baseline measurement ({perSecond, serverCpu, clientCpu}); returns its index. */
    addBaseline(measurement) {
      baselines.push(measurement);
      return baselines.length - 1;
    },

    /** The JSON document (results ordered as measured, the baseline first). */
    finish() {
      const invalid = invalidReasons(baselines, calibration);
      const rows = results.map(({ relative, ...r }) => {
        const done = { ...r };
        // Fields for this module only (`_ack`: a drain's ack mode, for the comparisons), not for the file.
        for (const key of Object.keys(done)) if (key.startsWith("_")) delete done[key];
        if (relative && invalid.length > 0) {
          // No ratio from a baseline that was not a ceiling: the figure stands alone, unjudged.
          const which = relative.map((i) => Math.round(baselines[i].perSecond)).join(" and ");
          done.notes = `${r.notes ? `${r.notes}; ` : ""}no ratio: the run is INVALID (baselines ${which} req/s)`;
          delete done.goal;
        } else if (relative) {
          const value = mean(relative.map((i) => baselines[i].perSecond));
          // One name for every ratio (the docs chart rows by it); which measurements were used goes in notes.
          done.baseline = { name: BASELINE_NAME, value: round(value), unit: "req/s" };
          const which = relative.map((i) => Math.round(baselines[i].perSecond)).join(" and ");
          done.notes = `${r.notes ? `${r.notes}; ` : ""}baseline: mean of ${which} req/s measured just before and after`;
          done.ratio = round(r.value / value, 3);
        }
        if (done.goal) done.goalMet = meets(done);
        return done;
      });
      // Ratios of two figures of this run (comparisons.mjs): valid whatever the baseline was.
      const compared = compare(results);
      for (const row of compared.rows) rows.push(row.goal ? { ...row, goalMet: meets(row) } : row);
      if (baselines.length > 0) {
        const values = baselines.map((b) => b.perSecond);
        const spread = (Math.max(...values) - Math.min(...values)) / mean(values);
        rows.unshift({
          id: BASELINE_ID,
          group: "Baseline",
          name: BASELINE_NAME,
          unit: "req/s",
          value: round(mean(values)),
          store: "none",
          samples: baselines.length,
          notes:
            `mean of ${baselines.length} measurements taken between the scenarios (${values.map((v) => Math.round(v)).join(", ")} req/s); ` +
            `each kernel ratio uses the measurements next to it; 8 keep-alive connections from the bench's undici generator` +
            (calibration
              ? ` (calibrated against autocannon on this route: ${Math.round(calibration.undici)} vs ${Math.round(calibration.autocannon)} req/s, ${round(calibration.ratio, 3)})`
              : "") +
            `; server at ${baselines.map((b) => `${round(b.serverCpu * 100)} %`).join(", ")} of a core, generator at ${baselines.map((b) => `${round(b.clientCpu * 100)} %`).join(", ")}, ` +
            `other processes at ${baselines.map((b) => `${round(b.others * 100)} %`).join(", ")}` +
            (spread > 0.2
              ? `; the measurements spread by ${round(spread * 100)} %: the machine was not quiet, so ratios are noisy`
              : ""),
        });
      }
      return {
        schemaVersion: 1,
        generatedAt: new Date().toISOString(),
        command,
        valid: invalid.length === 0,
        ...(invalid.length > 0 ? { invalidReason: invalid.join("; ") } : {}),
        ...(calibration
          ? {
              generator: {
                name: "undici",
                connections: 8,
                autocannonReqPerSecond: round(calibration.autocannon),
                generatorReqPerSecond: round(calibration.undici),
                ratioToAutocannon: round(calibration.ratio, 3),
              },
            }
          : {}),
        machine: {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model ?? "unknown",
          memoryGiB: round(totalmem() / 2 ** 30, 1),
          node: process.version,
          os: `${process.platform} ${process.arch}`,
          notes: `load average at start ${loadAtStart.join(" / ")}, at end ${loadavg()
            .map((n) => round(n, 2))
            .join(" / ")} (1/5/15 min); free memory at end ${round(freemem() / 2 ** 30, 1)} GiB`,
        },
        results: rows,
        skipped: [...skipped, ...compared.skipped],
      };
    },
  };
}

/**
 * Why a run's ratios cannot be trusted (empty when they can): a baseline whose server was not near one
 * core was limited by something else than Fastify, and a generator short of autocannon's rate would
 * understate the baseline.
 */
export function invalidReasons(baselines, calibration) {
  const out = [];
  const low = baselines.filter((b) => b.serverCpu < MIN_SERVER_CORES);
  if (low.length > 0)
    out.push(
      `baseline server under ${MIN_SERVER_CORES} core in ${low.length} of ${baselines.length} measurements (${low.map((b) => `${round(b.serverCpu, 2)}`).join(", ")} core)`,
    );
  if (calibration && !calibration.ok)
    out.push(
      `the generator reached ${round(calibration.ratio, 3)} of autocannon's rate on the baseline route (needs ≥ 0.85)`,
    );
  return out;
}

/** Whether a finished result meets its goal. */
export function meets(r) {
  const v = r.goal.of === "ratio" ? r.ratio : r.value;
  if (typeof v !== "number" || !Number.isFinite(v)) return false;
  return r.goal.op === ">=" ? v >= r.goal.target : v <= r.goal.target;
}

const fmt = (n) =>
  typeof n !== "number"
    ? ""
    : n.toLocaleString("en-US", { maximumFractionDigits: Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 1 ? 2 : 3 });

function goalText(g, unit) {
  if (!g) return "";
  return g.of === "ratio" ? `ratio ${g.op} ${fmt(g.target)}` : `${g.op} ${fmt(g.target)} ${unit}`;
}

/**
 * A markdown table padded the way the repository's formatter (biome) writes it, so the generated block
 * passes `biome check` as written. `align[i]` is "left" or "right".
 */
export function markdownTable(header, rows, align) {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i].length)));
  const cell = (text, i) => (align[i] === "right" ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const line = (cells) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = widths.map((w, i) => (align[i] === "right" ? `${"-".repeat(w - 1)}:` : "-".repeat(w)));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)].join("\n");
}

/** The markdown of a results document: header line, figures table, skipped figures, notes. */
export function renderTable(doc) {
  const rows = doc.results.map((r) => [
    `\`${r.id}\``,
    `${r.group}: ${r.name}`,
    `${fmt(r.value)} ${r.unit}`,
    r.ratio === undefined ? "" : fmt(r.ratio),
    goalText(r.goal, r.unit),
    r.goal ? (r.goalMet ? "yes" : "**no**") : "",
  ]);
  const lines = [
    ...(doc.valid === false
      ? [`**INVALID run — no ratios:** ${doc.invalidReason}. Re-run \`pnpm bench\` on a quiet machine.`, ""]
      : []),
    `Run ${doc.generatedAt} · \`${doc.command}\` · ${doc.machine.cpus} × ${doc.machine.cpuModel}, ${doc.machine.memoryGiB} GiB, Node ${doc.machine.node} · ${doc.machine.notes}`,
    "",
    markdownTable(["id", "figure", "value", "ratio to baseline", "goal", "met"], rows, [
      "left",
      "left",
      "right",
      "right",
      "left",
      "left",
    ]),
  ];
  if (doc.skipped.length > 0) {
    lines.push("", "Skipped in this run:", "");
    for (const s of doc.skipped)
      lines.push(`- ${s.ids.map((id) => `\`${id}\``).join(", ")} — skipped: ${s.reason}`);
  }
  const noted = doc.results.filter((r) => r.notes);
  if (noted.length > 0) {
    lines.push("", "Notes recorded by the run:", "");
    for (const r of noted) lines.push(`- \`${r.id}\`: ${r.notes}`);
  }
  return lines.join("\n");
}

export const BEGIN =
  "<!-- bench:results:begin (written by reference-server/bench/run.mjs; do not edit by hand) -->";
export const END = "<!-- bench:results:end -->";

/** Replaces the generated block of docs/benchmarks.md (between BEGIN and END) with the table. */
export function updateDocs(mdPath, doc) {
  const md = readFileSync(mdPath, "utf8");
  const a = md.indexOf(BEGIN);
  const b = md.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${mdPath} has no ${BEGIN} … ${END} block`);
  writeFileSync(mdPath, `${md.slice(0, a + BEGIN.length)}\n${renderTable(doc)}\n${md.slice(b)}`);
}

export function writeJson(path, doc) {
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
}
