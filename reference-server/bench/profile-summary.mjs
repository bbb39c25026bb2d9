#!/usr/bin/env node
/**
 * Top self-time entries of V8 CPU profiles (`node --cpu-prof`, or a bench run with CAP_BENCH_CPU_PROF=DIR):
 *
 *   node bench/profile-summary.mjs [--top 25] [--by function|file] FILE.cpuprofile ...
 *
 * Self time per function (name + file:line, paths shortened to the package or `node:` module) as a share
 * of the samples, excluding idle; several files are added up. Must never change a profile: it only reads.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, by: { type: "string", default: "function" } },
});
if (positionals.length === 0) {
  process.stderr.write("usage: profile-summary.mjs [--top N] [--by function|file] FILE.cpuprofile ...\n");
  process.exit(2);
}

function shortUrl(url) {
  if (!url) return "(native)";
  const u = url.replace(/^file:\/\//, "");
  const nm = u.lastIndexOf("/node_modules/");
  if (nm >= 0) return u.slice(nm + "/node_modules/".length).replace(/^\.pnpm\/[^/]+\/node_modules\//, "");
  const src = u.search(/\/(reference-server|spec|sdk-ts)\//);
  return src >= 0 ? u.slice(src + 1) : u;
}

const self = new Map();
let total = 0;
let idle = 0;
for (const file of positionals) {
  const prof = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const id of prof.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, n] of counts) {
    const node = byId.get(id);
    const f = node.callFrame;
    if (f.functionName === "(idle)") {
      idle += n;
      continue;
    }
    total += n;
    const where = shortUrl(f.url);
    const key =
      values.by === "file"
        ? where
        : `${f.functionName || "(anonymous)"} ${where}${f.url ? `:${f.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + n);
  }
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
process.stdout.write(
  `${total} busy samples (${idle} idle) in ${positionals.length} profile(s); self time, top ${rows.length}:\n`,
);
for (const [key, n] of rows)
  process.stdout.write(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${key}\n`);
