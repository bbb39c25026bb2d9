/**
 * No term an outsider cannot resolve in the committed docs: design-record numbers (ADR-005), pull-request
 * and issue numbers, "the shell" (a product name nobody outside knows), the old gap labels C1–C3, and dates of
 * the production kernel outside a section that explains them. Each rule says what to write instead.
 *
 * A section may allow a rule, with a reason, between `<!-- outsider-terms allow=<rule>: reason -->` and
 * `<!-- /outsider-terms -->` (CAP.md's production appendix does, for its dated comparison).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)";

const RULES = [
  {
    id: "adr",
    re: /\bADR-?\d+/g,
    instead: "say what the design decided (e.g. 'the local CLI driver design')",
  },
  { id: "pr", re: /\b(?:PR|pull request) #?\d+/gi, instead: "say what changed, without the tracker number" },
  { id: "issue", re: /\bissue #?\d+/gi, instead: "say what the issue asked for, without its number" },
  {
    id: "shell",
    re: /\bthe shell\b(?!\s+(?:blocks?|commands?|scripts?|sessions?|variables?)\b)/gi,
    instead: "name the thing: 'a chat client', 'the terminal'",
  },
  { id: "gap-label", re: /\bC[123]\b/g, instead: "name the topic ('audit', 'attempts', 'redelivery')" },
  {
    id: "production-date",
    // A month and year in a paragraph that speaks of the production kernel: a snapshot date needs its why.
    re: new RegExp(`\\b${MONTH} 20\\d\\d\\b`, "g"),
    when: (paragraph) => /\bproduction\b/i.test(paragraph),
    instead: "drop the date, or keep it inside an explained allow section",
  },
];

/** Every committed page a reader sees: docs/**, the READMEs, the generated API pages the site renders. */
function docFiles() {
  const out = ["README.md", "sdk-ts/docs/api.md", "sdk-py/docs/api.md"];
  out.push("spec/generated/cap-v1.openapi.yaml", "spec/generated/kernel-admin.openapi.yaml");
  for (const d of readdirSync(root, { withFileTypes: true })) {
    if (!d.isDirectory() || d.name.startsWith(".") || d.name === "node_modules") continue;
    if (readdirSync(join(root, d.name)).includes("README.md")) out.push(`${d.name}/README.md`);
  }
  for (const ex of readdirSync(join(root, "examples"))) {
    if (readdirSync(join(root, "examples", ex)).includes("README.md")) out.push(`examples/${ex}/README.md`);
  }
  const skip = new Set(["node_modules", "site", "test-results"]);
  const walk = (dir) => {
    for (const d of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${d.name}`;
      if (d.isDirectory() && !skip.has(d.name)) walk(rel);
      else if (d.isFile() && d.name.endsWith(".md")) out.push(rel);
    }
  };
  walk("docs");
  return [...new Set(out)].sort();
}

const ALLOW_OPEN = /^<!-- outsider-terms allow=([\w,-]+): (\S.*?) -->$/;
const ALLOW_CLOSE = /^<!-- \/outsider-terms -->$/;

/** Every rule hit in `text` as `{rule, line, match}`; allow sections without a reason are problems. */
function findTerms(text) {
  const hits = [];
  const lines = text.split("\n");
  let allowed = new Set();
  let paragraph = [];
  const flush = () => {
    const body = paragraph.map((p) => p.text).join("\n");
    for (const rule of RULES) {
      if (rule.when && !rule.when(body)) continue;
      for (const { text: line, no, allow } of paragraph) {
        if (allow.has(rule.id)) continue;
        for (const m of line.matchAll(rule.re)) hits.push({ rule: rule.id, line: no, match: m[0] });
      }
    }
    paragraph = [];
  };
  lines.forEach((line, i) => {
    const open = ALLOW_OPEN.exec(line.trim());
    if (open) allowed = new Set(open[1].split(","));
    else if (ALLOW_CLOSE.test(line.trim())) allowed = new Set();
    else if (/^<!-- outsider-terms/.test(line.trim()))
      hits.push({ rule: "marker", line: i + 1, match: line });
    if (line.trim() === "") flush();
    else paragraph.push({ text: line, no: i + 1, allow: allowed });
  });
  flush();
  return hits;
}

describe("findTerms", () => {
  it.each([
    ["as the design record says (ADR-005)", ["adr"]],
    ["counted since PR #822 and pull request 9", ["pr", "pr"]],
    ["the limits of issue 30", ["issue"]],
    ["The shell may render it", ["shell"]],
    ["runs the shell blocks of a page in the shell session", []],
    ["| C2 `attempts` |", ["gap-label"]],
    ["the production kernel (August 2026)", ["production-date"]],
    ["Node 20 reached end of life in April 2026", []],
    ["run it in a shell script; C12 is fine; ADR is a word", []],
    [
      "<!-- outsider-terms allow=production-date: dated snapshot -->\nproduction, August 2026\n<!-- /outsider-terms -->",
      [],
    ],
    ["<!-- outsider-terms allow=production-date: why -->\nADR-004 in production", ["adr"]],
    ["<!-- outsider-terms allow=adr -->\nADR-004", ["marker", "adr"]],
  ])("finds in %j: %j", (text, want) => {
    expect(findTerms(text).map((h) => h.rule)).toEqual(want);
  });
});

describe("outsider terms in the committed docs", () => {
  const files = docFiles();

  it("reads docs/, every README and the generated API pages", () => {
    expect(files).toEqual(expect.arrayContaining(["docs/CAP.md", "docs/drivers.md", "cli/README.md"]));
  });

  it.each(files)("%s has none", (file) => {
    const hits = findTerms(readFileSync(join(root, file), "utf8"));
    const rule = (id) => RULES.find((r) => r.id === id)?.instead ?? "an allow marker needs `: reason`";
    expect(hits.map((h) => `${file}:${h.line}: "${h.match}" — ${rule(h.rule)}`)).toEqual([]);
  });
});
