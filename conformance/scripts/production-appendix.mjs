#!/usr/bin/env node
/**
 * The table of docs/CAP.md's appendix that lists what a production-dialect kernel fails, rendered from
 * conformance/baselines/production.yaml (the one list). `node conformance/scripts/production-appendix.mjs`
 * rewrites the block between the markers; conformance/test/production-profile.test.ts fails when the
 * block and the file differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BASELINE = join(root, "conformance", "baselines", "production.yaml");
export const CAP_MD = join(root, "docs", "CAP.md");
export const BEGIN =
  "<!-- production-baseline:begin — generated from conformance/baselines/production.yaml by conformance/scripts/production-appendix.mjs; do not edit -->";
export const END = "<!-- production-baseline:end -->";

/** The markdown table (markers included) for the baseline's YAML text. */
export function renderAppendix(yamlText) {
  const entries = parse(yamlText).expectedFailures;
  const rows = entries.map((e) => [`\`${e.check ?? e.requirement}\``, e.reason]);
  const head = ["check", "why a production-dialect kernel fails it"];
  const width = [0, 1].map((i) => Math.max(head[i].length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(" | ")} |`;
  const rule = `| ${width.map((w) => "-".repeat(w)).join(" | ")} |`;
  return [BEGIN, line(head), rule, ...rows.map(line), END].join("\n");
}

/** The block as docs/CAP.md has it now (markers included), or null. */
export function currentAppendix(md) {
  const from = md.indexOf(BEGIN);
  const to = md.indexOf(END);
  return from < 0 || to < from ? null : md.slice(from, to + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const md = readFileSync(CAP_MD, "utf8");
  const now = currentAppendix(md);
  if (now === null) throw new Error(`${CAP_MD} has no ${BEGIN.slice(0, 36)}… block`);
  const table = renderAppendix(readFileSync(BASELINE, "utf8"));
  writeFileSync(
    CAP_MD,
    md.replace(now, () => table),
  );
}
