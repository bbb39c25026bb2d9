/**
 * The results file (`docs/benchmarks/results.json`, shape in docs/benchmarks/results.schema.json and at the
 * top of docs/benchmarks.md) and the figures table inside docs/benchmarks.md, both written from the same
 * in-memory report so the docs can only show what this run measured.
 *
 * Ratios are filled in at the end against the run's baseline (the mean of the Fastify hello-world measured
 * at the start and at the end of the run), so every ratio compares figures from one run on one machine.
 * Must never write a number for something that was not measured: skipped figures are listed under
 * `skipped` with the reason, and have no entry in `results`.
 */
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { readFileSync, writeFileSync } from "node:fs";
import { round } from "./stats.mjs";

export const BASELINE_ID = "fastify-hello-post";
export const BASELINE_NAME = "Fastify hello-world POST";

export function createReport({ command }) {
  const results = [];
  const skipped = [];
  let baseline = null;
  const loadAtStart = loadavg().map((n) => round(n, 2));

  return {
    /** A measured figure; `relative: true` gets `baseline` and `ratio` at the end. */
    add(result) {
      results.push(result);
      return result;
    },
    skip(ids, reason) {
      skipped.push({ ids, reason });
    },
    setBaseline(value) {
      baseline = value;
    },
    get results() {
      return results;
    },
    get skipped() {
      return skipped;
    },

    /** The JSON document (results ordered as measured). */
    finish() {
      const out = results.map(({ relative, ...r }) => {
        const done = { ...r };
        if (relative && baseline) {
          done.baseline = { name: BASELINE_NAME, value: round(baseline, 0), unit: "req/s" };
          done.ratio = round(r.value / baseline, 3);
        }
        if (done.goal) done.goalMet = meets(done);
        return done;
      });
      return {
        schemaVersion: 1,
        generatedAt: new Date().toISOString(),
        command,
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
        results: out,
        skipped,
      };
    },
  };
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

function goalText(g) {
  return g ? `${g.of === "ratio" ? "ratio " : ""}${g.op} ${fmt(g.target)}` : "";
}

/** The markdown table of a results document. */
export function renderTable(doc) {
  const lines = [
    `Run ${doc.generatedAt} · \`${doc.command}\` · ${doc.machine.cpus} × ${doc.machine.cpuModel}, ${doc.machine.memoryGiB} GiB, Node ${doc.machine.node} · ${doc.machine.notes}`,
    "",
    "| id | figure | value | ratio to baseline | goal | met |",
    "| --- | --- | ---: | ---: | --- | --- |",
  ];
  for (const r of doc.results) {
    const met = r.goal ? (r.goalMet ? "yes" : "**no**") : "";
    lines.push(
      `| \`${r.id}\` | ${r.group}: ${r.name} | ${fmt(r.value)} ${r.unit} | ${r.ratio === undefined ? "" : fmt(r.ratio)} | ${goalText(r.goal)} | ${met} |`,
    );
  }
  if (doc.skipped.length > 0) {
    lines.push("", "Skipped in this run:", "");
    for (const s of doc.skipped) lines.push(`- ${s.ids.map((id) => `\`${id}\``).join(", ")} — skipped: ${s.reason}`);
  }
  const noted = doc.results.filter((r) => r.notes);
  if (noted.length > 0) {
    lines.push("", "Notes recorded by the run:", "");
    for (const r of noted) lines.push(`- \`${r.id}\`: ${r.notes}`);
  }
  return lines.join("\n");
}

export const BEGIN = "<!-- bench:results:begin (written by reference-server/bench/run.mjs; do not edit by hand) -->";
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
