/**
 * The error table in docs/CAP.md is the error registry spec/errors.yaml (surface `cap`), row for row.
 *
 * The registry is the source: each code declared once, with the one status it is always sent with. The docs
 * table is written by hand from it; this test fails on any difference in either direction, on a code that is
 * not snake_case or not unique, on a status that is not 4xx/5xx, and on a requirement sentence that pairs a
 * code with a status other than its registered one (for example "`404` `auth_required`").
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const specDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const CAP_MD = join(specDir, "..", "docs", "CAP.md");
const REGISTRY = join(specDir, "errors.yaml");

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const TABLE_HEADER = /^\|\s*code\s*\|\s*status\s*\|\s*meaning\s*\|\s*$/;

interface Row {
  code: string;
  status: number;
  meaning: string;
  line: number;
}

interface RegistryEntry {
  code: string;
  status: number;
  surface: string;
  message: string;
}

/** The rows of the one `| code | status | meaning |` table under the `## Errors` heading. */
function parseErrorTable(source: string): { rows: Row[]; problems: string[] } {
  const lines = source.split("\n");
  const problems: string[] = [];
  const start = lines.findIndex((line) => line.trim() === "## Errors");
  if (start < 0) return { rows: [], problems: ['docs/CAP.md has no "## Errors" heading'] };
  const end = lines.findIndex((line, i) => i > start && /^## /.test(line));
  const section = lines.slice(start, end < 0 ? undefined : end);
  const headers = section.flatMap((line, i) => (TABLE_HEADER.test(line) ? [i] : []));
  if (headers.length !== 1) {
    return {
      rows: [],
      problems: [`expected one "| code | status | meaning |" table, found ${headers.length}`],
    };
  }
  const rows: Row[] = [];
  for (let i = headers[0]! + 2; i < section.length && section[i]!.startsWith("|"); i++) {
    const lineNo = start + i + 1;
    const cells = section[i]!.slice(1, -1).split(" | ");
    const match = cells.length === 3 ? /^`([^`]+)`$/.exec(cells[0]!.trim()) : null;
    const status = Number(cells[1]?.trim());
    if (!match || !Number.isInteger(status) || !cells[2]?.trim()) {
      problems.push(`line ${lineNo}: expected "| \`code\` | status | meaning |", got ${section[i]}`);
      continue;
    }
    rows.push({ code: match[1]!, status, meaning: cells[2].trim(), line: lineNo });
  }
  return { rows, problems };
}

const capMd = readFileSync(CAP_MD, "utf8");
const table = parseErrorTable(capMd);
const registry = parse(readFileSync(REGISTRY, "utf8")) as RegistryEntry[];
const capEntries = registry.filter((e) => e.surface === "cap");
const registryByCode = new Map(registry.map((e) => [e.code, e]));
const tableByCode = new Map(table.rows.map((r) => [r.code, r]));

function duplicates(codes: string[]): string[] {
  const seen = new Set<string>();
  return codes.filter((code) => {
    if (seen.has(code)) return true;
    seen.add(code);
    return false;
  });
}

describe("spec/errors.yaml", () => {
  it("is a non-empty list with CAP entries", () => {
    expect(Array.isArray(registry)).toBe(true);
    expect(capEntries.length).toBeGreaterThan(0);
  });

  it("declares each code once", () => {
    expect(duplicates(registry.map((e) => e.code)), "codes declared more than once").toEqual([]);
  });

  it.each(registry)("$code: snake_case, 4xx/5xx, with a surface and a message", (entry) => {
    expect(entry.code).toMatch(SNAKE_CASE);
    expect(Number.isInteger(entry.status) && entry.status >= 400 && entry.status <= 599, "status").toBe(true);
    expect(["cap", "admin"]).toContain(entry.surface);
    expect(typeof entry.message === "string" && entry.message.length > 0, "message").toBe(true);
  });
});

describe("the error table in docs/CAP.md", () => {
  it("parses", () => {
    expect(table.problems).toEqual([]);
    expect(table.rows.length).toBeGreaterThan(0);
  });

  it("lists each code once", () => {
    expect(duplicates(table.rows.map((r) => r.code)), "codes listed more than once").toEqual([]);
  });

  it("lists every code spec/errors.yaml declares for surface cap", () => {
    expect(
      capEntries.filter((e) => !tableByCode.has(e.code)).map((e) => e.code),
      "in spec/errors.yaml (surface: cap) but missing from the docs/CAP.md table",
    ).toEqual([]);
  });

  it("lists no code that spec/errors.yaml lacks for surface cap", () => {
    expect(
      table.rows.filter((r) => registryByCode.get(r.code)?.surface !== "cap").map((r) => r.code),
      "in the docs/CAP.md table but not a cap code in spec/errors.yaml",
    ).toEqual([]);
  });

  it.each(table.rows)("$code (line $line): snake_case, 4xx/5xx, and the registry's status", (row) => {
    expect(row.code).toMatch(SNAKE_CASE);
    expect(row.status >= 400 && row.status <= 599, `${row.code}: status ${row.status} is not 4xx/5xx`).toBe(
      true,
    );
    const entry = registryByCode.get(row.code);
    if (entry)
      expect(row.status, `${row.code}: docs/CAP.md and spec/errors.yaml disagree`).toBe(entry.status);
  });
});

describe("status and code pairs in docs/CAP.md prose", () => {
  const pairs = [...capMd.matchAll(/`([1-5][0-9]{2})` `([a-z][a-z0-9_]*)`/g)].map((m) => ({
    status: Number(m[1]),
    code: m[2]!,
  }));

  it("exist", () => {
    expect(pairs.length).toBeGreaterThan(0);
  });

  it.each(pairs)("`$status` `$code` matches the registry", ({ status, code }) => {
    const entry = registryByCode.get(code);
    expect(entry, `${code} is not in spec/errors.yaml`).toBeDefined();
    expect(status, `${code} is registered with status ${entry?.status}`).toBe(entry?.status);
  });
});
