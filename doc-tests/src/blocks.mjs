/**
 * Finds the documentation this package holds to account and the fenced shell blocks in it, with the marker
 * comment that says how each is run: `<!-- runnable cwd=root kernel=demo … -->` or `<!-- not-runnable: why -->`
 * on the line right before the fence (README.md in this folder describes the attributes).
 *
 * Must never: run anything, or count a block inside an `<!-- include: -->` region (that is a file's text,
 * not a command for the reader).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const SHELL = new Set(["sh", "bash", "shell", "console", "zsh"]);

/** Package READMEs whose commands are checked besides README.md and docs/**. */
const PACKAGE_READMES = [
  "sdk-ts/README.md",
  "sdk-py/README.md",
  "conformance/README.md",
  "cli/README.md",
  "console/README.md",
  "doc-tests/README.md",
  "spec/README.md",
  "reference-server/README.md",
  "reference-server/src/store/postgres/README.md",
];

function walk(dir, out = []) {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    if (d.name === "node_modules" || d.name === "site" || d.name.startsWith(".")) continue;
    const p = join(dir, d.name);
    if (d.isDirectory()) walk(p, out);
    else if (d.name.endsWith(".md")) out.push(p);
  }
  return out;
}

/** The markdown files whose shell blocks must be marked, repository-relative and sorted. */
export function docFiles() {
  const examples = readdirSync(join(ROOT, "examples"))
    .map((e) => `examples/${e}/README.md`)
    .filter((f) => existsSync(join(ROOT, f)));
  const files = ["README.md", ...walk(join(ROOT, "docs")).map((f) => relative(ROOT, f))];
  return [...files, ...PACKAGE_READMES, ...examples].filter((f) => existsSync(join(ROOT, f))).sort();
}

/** `a=1 b="two words" flag` → {a: "1", b: "two words", flag: true}. */
export function parseAttributes(text) {
  const attrs = {};
  for (const m of text.matchAll(/([\w-]+)(?:=(?:"([^"]*)"|(\S+)))?/g)) attrs[m[1]] = m[2] ?? m[3] ?? true;
  return attrs;
}

function markerOf(line) {
  const runnable = /^<!--\s*runnable\b(.*?)-->\s*$/.exec(line);
  if (runnable) return { kind: "runnable", attrs: parseAttributes(runnable[1]) };
  const not = /^<!--\s*not-runnable:\s*(.*?)\s*-->\s*$/.exec(line);
  if (not) return { kind: "not-runnable", reason: not[1] };
  return null;
}

/**
 * Every fenced block of a markdown text: `{lang, line, body, shell, marker, included}`; `line` is the
 * 1-based line of the opening fence, `marker` the comment right above it (or null).
 */
export function parseBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  let included = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^<!--\s*include:/.test(line)) included = true;
    if (/^<!--\s*\/include\s*-->/.test(line)) included = false;
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/.exec(line);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j])) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      j++;
    }
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === "") k--;
    const marker = k >= 0 && i - k === 1 ? markerOf(lines[k].trim()) : null;
    blocks.push({ lang, line: i + 1, body: body.join("\n"), shell: SHELL.has(lang), marker, included });
    i = j;
  }
  return blocks;
}

/** The shell blocks of one repository-relative file, with the file's name on each. */
export function shellBlocks(file) {
  const text = readFileSync(join(ROOT, file), "utf8");
  return parseBlocks(text)
    .filter((b) => b.shell && !b.included)
    .map((b) => ({ ...b, file }));
}
