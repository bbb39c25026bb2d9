#!/usr/bin/env node
/**
 * Writes the code of every `<!-- include: path -->` in the docs' markdown into the markdown itself, between
 * the directive and `<!-- /include -->`, so the pages show their code on GitHub as well as on the site.
 * Run by the docs package's `generate` (`npx -y pnpm@12.4.2 --filter @commonly/cap-docs generate`); the site
 * build fails on a region that differs from its file, and CI on any file this changes.
 *
 * Must never: write a file whose text it did not change.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expandIncludes } from "./markdown.mjs";

const DOCS = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function markdownFiles(dir, out = []) {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    if (["node_modules", "site", "build", "test", "test-results"].includes(d.name)) continue;
    const p = join(dir, d.name);
    if (d.isDirectory()) markdownFiles(p, out);
    else if (d.name.endsWith(".md")) out.push(p);
  }
  return out;
}

for (const file of markdownFiles(DOCS)) {
  const before = readFileSync(file, "utf8");
  const after = expandIncludes(before, file);
  if (after !== before) {
    writeFileSync(file, after);
    console.log(`includes: wrote ${relative(DOCS, file)}`);
  }
}
