/**
 * Comments in the kernel's source say why, not how much: a benchmark figure (a ratio, a microsecond cost,
 * a rate, a share of the CPU) or a lab-notebook method (an A/B, paired runs) goes to docs/benchmarks.md,
 * "Why the hot path looks like this", where one run's figures can be kept current.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = resolve(import.meta.dirname, "..", "..", "src");

/** What a benchmark figure looks like in prose. */
const FIGURES: [string, RegExp][] = [
  ["a ratio", /\d(?:[.,]\d+)? ?×/],
  ["a microsecond cost", /\d ?µs\b/],
  ["a rate", /\b(?:events|req|requests)\/s\b/],
  ["a share of the CPU", /\d(?:\.\d+)? ?% of (?:the |an? |its )?[\w' -]*?\b(?:CPU|samples)\b/],
  ["a CPU figure", /\d(?:\.\d+)? core\b/],
  ["a lab method", /\bA\/B\b|\bab-drain\b|\bpaired runs\b/],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "generated") return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every comment of a module, once each: the leading and trailing comments of its nodes. */
function commentsOf(text: string): string[] {
  const file = ts.createSourceFile("m.ts", text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(file);
  take(ts.getLeadingCommentRanges(text, file.endOfFileToken.getFullStart()));
  return [...seen.values()];
}

function figuresIn(text: string): string[] {
  const found: string[] = [];
  for (const comment of commentsOf(text)) {
    const flat = comment.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, " ");
    for (const [what, pattern] of FIGURES) {
      const m = pattern.exec(flat);
      if (m) found.push(`${what} (…${flat.slice(Math.max(0, m.index - 40), m.index + 30)}…)`);
    }
  }
  return found;
}

describe("comments in src/", () => {
  it("find every figure pattern in a comment and none in code", () => {
    const text = `// 1.144 × the rate\nconst x = "3 µs"; /* 6 % of the kernel's CPU */\n/** A/B */ function f() {}`;
    expect(figuresIn(text)).toHaveLength(3);
    expect(figuresIn('const rate = "12 events/s";')).toEqual([]);
  });

  it("hold no benchmark figure: figures go to docs/benchmarks.md", () => {
    const found = sources(src).flatMap((file) =>
      figuresIn(readFileSync(file, "utf8")).map((f) => `${relative(src, file)}: ${f}`),
    );
    expect(found).toEqual([]);
  });
});
