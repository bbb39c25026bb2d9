/**
 * The lease rules are written once per dialect, in `src/store/{sqlite,postgres}/lease-rules.ts`: the SQL
 * of every other store module (its string and template literals; comments are prose) states no rule
 * itself but composes it by name. A statement restates a rule when it holds a rule's text with any
 * parameters in its holes, or a rule's signature: a piece of SQL that only a rule has reason to write.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as postgresRules from "../../src/store/postgres/lease-rules.js";
import * as sqliteRules from "../../src/store/sqlite/lease-rules.js";

const storeDir = resolve(import.meta.dirname, "..", "..", "src", "store");
const RULES_FILES = ["sqlite/lease-rules.ts", "postgres/lease-rules.ts"];
/** Stands for an interpolation (`${…}`) in a statement's text: no rule's text spans one. */
const HOLE = "⟨…⟩";
/** Stands for a rule's parameter while its text becomes a pattern. */
const PARAM = "⟨param⟩";

/** What each rule's text says that no other statement should, whatever its parameters. */
const SIGNATURES: [string, RegExp][] = [
  ["the attempt budget (ATTEMPTS_LEFT, BUDGET_USED, REQUEUE)", /\battempt_base\b/],
  [
    "a lease end compared with an instant (LEASE_ENDED, HELD, NEXT_EXPIRY)",
    /\blease_expires_at\s*(<=|>=|<|>)/,
  ],
  ["the released mark (HELD, MARK_RELEASED)", /\brelease_attempts\b/],
  ["the delivery fence (FENCE)", /\battempts\s*=\s*(@\w+|\$\d+|\?)/],
  ["the attempt counted at claim (LEASE)", /\battempts\s*\+\s*1\b/],
  ["a stored state compared or set (PENDING, LEASED, FAILED, UNACKED, ACK, FAIL)", /\bstate\s*(=|!=|<>)\s*'/],
  ["the retire reason (RETIRE)", /'max_attempts'/],
  ["the cancelled delivery (CANCEL, CANCELLED_DELIVERY)", /\bcancelled_attempts\s*=/],
];

function storeModules(dir = storeDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return storeModules(path);
    return e.name.endsWith(".ts") ? [relative(storeDir, path)] : [];
  });
}

/** The text of every string and template literal in a module, holes marked, whitespace collapsed. */
function sqlOf(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(storeDir, file), "utf8"),
    ts.ScriptTarget.Latest,
  );
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node))
      found.push(node.head.text + node.templateSpans.map((s) => ` ${HOLE} ${s.literal.text}`).join(""));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.map(normalize);
}

const normalize = (sql: string) => sql.replace(/\s+/g, " ").trim();
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A rule's text as a pattern: its parameters' holes match any SQL without an interpolation. */
function patternOf(rule: string | ((...args: string[]) => string)): RegExp {
  const params = typeof rule === "string" ? [] : Array<string>(rule.length).fill(PARAM);
  const text = normalize(typeof rule === "string" ? rule : rule(...params));
  const parts = text.split(PARAM).map(escapeRegExp);
  return new RegExp(parts.join("[^⟨]+?"));
}

const RULES = [
  ...Object.entries(sqliteRules).map(([name, rule]) => ({ name: `sqlite ${name}`, rule })),
  ...Object.entries(postgresRules).map(([name, rule]) => ({ name: `postgres ${name}`, rule })),
];

/** Every restatement in the store's modules outside the rules files, as "file: what (excerpt)". */
function restatements(): string[] {
  const found: string[] = [];
  for (const file of storeModules().filter((f) => !RULES_FILES.includes(f))) {
    for (const sql of sqlOf(file)) {
      for (const { name, rule } of RULES) {
        const m = patternOf(rule).exec(sql);
        if (m) found.push(`${file}: the text of ${name} (${m[0]})`);
      }
      for (const [what, signature] of SIGNATURES) {
        const m = signature.exec(sql);
        if (m) found.push(`${file}: ${what} (…${sql.slice(Math.max(0, m.index - 40), m.index + 40)}…)`);
      }
    }
  }
  return found;
}

describe("the lease rules", () => {
  it("are named in one file per dialect, with the same names", () => {
    expect(Object.keys(sqliteRules).sort()).toEqual(Object.keys(postgresRules).sort());
    for (const name of ["PENDING", "READY_AGAIN", "EXHAUSTED", "HELD", "FENCE", "NEXT_EXPIRY", "LEASE"])
      expect(sqliteRules).toHaveProperty(name);
  });

  it("each match their own text, and every signature is some rule's", () => {
    const rendered = (rule: string | ((...args: string[]) => string)) =>
      normalize(typeof rule === "string" ? rule : rule(...Array<string>(rule.length).fill("?")));
    for (const { name, rule } of RULES) expect(patternOf(rule).test(rendered(rule)), name).toBe(true);
    for (const [dialect, rules] of Object.entries({ sqlite: sqliteRules, postgres: postgresRules })) {
      const all = Object.values(rules).map(rendered).join("\n");
      for (const [what, signature] of SIGNATURES)
        expect(signature.test(all), `${dialect}: ${what}`).toBe(true);
    }
  });

  it("are not restated by any statement of the store: each statement uses their names", () => {
    expect(restatements()).toEqual([]);
  });
});
