/**
 * docs/CAP.md and spec/requirements.yaml say the same thing.
 *
 * CAP.md is the normative text: every requirement is a one-line bullet `- **CAP-<FAMILY>-<n>** <sentence>`.
 * The manifest lists the same ids, in the same order, with the same sentence, the level of its RFC 2119 key
 * word, the heading it sits under and the metadata conformance checks need (subject, testable, feature).
 * spec/generated/requirements.json is the manifest as JSON and must be regenerated after every edit.
 * This file only reads; it never rewrites either document.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FEATURES as GENERATED_FEATURES } from "../generated/constants.js";

const specDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const CAP_MD = join(specDir, "..", "docs", "CAP.md");
const MANIFEST = join(specDir, "requirements.yaml");
const GENERATED = join(specDir, "generated", "requirements.json");

const FAMILIES = [
  "AUTH",
  "EVT",
  "LEASE",
  "ACK",
  "REL",
  "BATCH",
  "POLL",
  "REPLAY",
  "CANCEL",
  "TRACE",
  "MSG",
  "READ",
  "IDEM",
  "MEM",
  "DEC",
  "INFO",
  "ERR",
  "PULL",
  "COMPAT",
  "VER",
  "DRV",
] as const;
// Declared once, in TypeSpec (enum Feature), generated into constants.js.
const FEATURES = GENERATED_FEATURES;
const LEVELS = ["MUST", "SHOULD", "MAY"] as const;
const SUBJECTS = ["kernel", "driver"] as const;
const FIELDS = ["id", "level", "subject", "text", "section", "testable", "feature"];

const ID = new RegExp(`^CAP-(${FAMILIES.join("|")})-[1-9][0-9]*$`);
const BULLET = /^- \*\*(CAP-[A-Z]+-[0-9]+)\*\* (.+)$/;
// Longest alternatives first, so "MUST NOT" is one key word, not "MUST" plus prose.
const KEYWORD = /\b(MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)\b/g;
const OTHER_BCP14 = /\b(SHALL|REQUIRED|RECOMMENDED|OPTIONAL)\b/;

interface DocRequirement {
  id: string;
  text: string;
  section: string | null;
  line: number;
}

/** Inline code is quoted material (field names, values), never normative wording. */
const withoutCode = (text: string): string => text.replace(/`[^`]*`/g, "``");

function parseCapMd(source: string): { requirements: DocRequirement[]; problems: string[] } {
  const requirements: DocRequirement[] = [];
  const problems: string[] = [];
  let section: string | null = null;
  let fenced = false;
  const lines = source.split("\n");
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) return;
    const heading = /^#{2,3} (.+)$/.exec(line);
    if (heading) {
      section = heading[1]!.trim();
      return;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      requirements.push({ id: bullet[1]!, text: bullet[2]!.trim(), section, line: lineNo });
      const next = lines[index + 1] ?? "";
      if (/^\s+\S/.test(next))
        problems.push(`line ${lineNo + 1}: requirement ${bullet[1]} must fit on one line`);
      return;
    }
    if (/\*\*CAP-[A-Z]+-[0-9]+\*\*/.test(line)) {
      problems.push(
        `line ${lineNo}: looks like a requirement but is not "- **CAP-XXX-n** sentence": ${line}`,
      );
      return;
    }
    // Outside requirement bullets the key words may only be quoted ("MUST"), as in the BCP 14 boilerplate.
    const prose = withoutCode(line).replace(/"(MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)"/g, "");
    const stray = prose.match(KEYWORD);
    if (stray)
      problems.push(`line ${lineNo}: RFC 2119 key word ${stray.join(", ")} outside a requirement bullet`);
  });
  return { requirements, problems };
}

/** The key words of one requirement sentence, inline code excluded. */
function keywordsOf(text: string): string[] {
  return withoutCode(text).match(KEYWORD) ?? [];
}

function levelOf(keyword: string): string {
  return keyword.replace(/ NOT$/, "");
}

/** Where two sentences first differ, with context, or null when equal (vitest truncates long strings). */
function textDifference(manifest: string, doc: string): string | null {
  if (manifest === doc) return null;
  let i = 0;
  while (manifest[i] === doc[i]) i++;
  const around = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 20), i + 40));
  return `from character ${i}: manifest ${around(manifest)} vs docs/CAP.md ${around(doc)}`;
}

function duplicates(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => {
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  });
}

const doc = parseCapMd(readFileSync(CAP_MD, "utf8"));
const manifest = parse(readFileSync(MANIFEST, "utf8")) as { version?: unknown; requirements?: unknown };
const entries = (Array.isArray(manifest.requirements) ? manifest.requirements : []) as Record<
  string,
  unknown
>[];
const docIds = doc.requirements.map((r) => r.id);
const manifestIds = entries.map((e) => String(e.id));
const docById = new Map(doc.requirements.map((r) => [r.id, r]));

describe("docs/CAP.md requirement bullets", () => {
  it("are well-formed, one per line, and key words appear nowhere else", () => {
    expect(doc.problems, "problems in docs/CAP.md").toEqual([]);
  });

  it("exist", () => {
    expect(doc.requirements.length, "no requirement bullets found in docs/CAP.md").toBeGreaterThan(0);
  });

  it("have ids of the form CAP-<FAMILY>-<n> with a known family", () => {
    expect(docIds.filter((id) => !ID.test(id))).toEqual([]);
  });

  it("never repeat an id", () => {
    expect(duplicates(docIds), "ids used more than once in docs/CAP.md").toEqual([]);
  });

  it.each(doc.requirements)("$id (line $line) is one sentence with exactly one RFC 2119 key word", (req) => {
    const keywords = keywordsOf(req.text);
    expect(keywords, `${req.id}: needs exactly one of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY`).toHaveLength(
      1,
    );
    expect(withoutCode(req.text), `${req.id}: uses a BCP 14 word outside the five allowed`).not.toMatch(
      OTHER_BCP14,
    );
    expect(req.text, `${req.id}: a requirement ends with a full stop`).toMatch(/\.$/);
    expect(withoutCode(req.text.slice(0, -1)), `${req.id}: holds more than one sentence`).not.toMatch(
      /[.!?] [A-Z]/,
    );
    expect(req.section, `${req.id}: sits under no heading`).not.toBeNull();
  });
});

describe("spec/requirements.yaml", () => {
  it("has version 1 and a list of requirements", () => {
    expect(manifest.version).toBe(1);
    expect(Array.isArray(manifest.requirements), "`requirements:` must be a list").toBe(true);
  });

  it("never repeats an id", () => {
    expect(duplicates(manifestIds), "ids listed more than once in spec/requirements.yaml").toEqual([]);
  });

  it("lists every id in docs/CAP.md", () => {
    const listed = new Set(manifestIds);
    expect(
      docIds.filter((id) => !listed.has(id)),
      "ids in docs/CAP.md but not in spec/requirements.yaml",
    ).toEqual([]);
  });

  it("lists no id that docs/CAP.md lacks", () => {
    expect(
      manifestIds.filter((id) => !docById.has(id)),
      "ids in spec/requirements.yaml but not in docs/CAP.md",
    ).toEqual([]);
  });

  it("lists the ids in docs/CAP.md order", () => {
    const common = new Set(docIds.filter((id) => manifestIds.includes(id)));
    const firstDifference = (a: string[], b: string[]) => {
      const i = a.findIndex((id, k) => id !== b[k]);
      return i < 0 ? null : `position ${i}: docs/CAP.md has ${a[i]}, the manifest has ${b[i]}`;
    };
    const difference = firstDifference(
      docIds.filter((id) => common.has(id)),
      manifestIds.filter((id) => common.has(id)),
    );
    expect(difference, `spec/requirements.yaml is out of docs/CAP.md order at ${difference}`).toBeNull();
  });

  it.each(entries.map((entry, index) => ({ entry, index, id: String(entry.id) })))(
    "entry $index ($id) has the manifest's fields with valid values",
    ({ entry, id }) => {
      expect(Object.keys(entry).sort(), `${id}: fields`).toEqual([...FIELDS].sort());
      expect(id, `${id}: id`).toMatch(ID);
      expect(LEVELS, `${id}: level`).toContain(entry.level);
      expect(SUBJECTS, `${id}: subject`).toContain(entry.subject);
      expect(typeof entry.testable, `${id}: testable must be true or false`).toBe("boolean");
      expect([null, ...FEATURES], `${id}: feature must be null or one of ${FEATURES.join(", ")}`).toContain(
        entry.feature,
      );
      expect(typeof entry.text === "string" && entry.text.length > 0, `${id}: text`).toBe(true);
      expect(typeof entry.section === "string" && entry.section.length > 0, `${id}: section`).toBe(true);
    },
  );

  it.each(entries.filter((e) => docById.has(String(e.id))).map((entry) => ({ entry, id: String(entry.id) })))(
    "$id agrees with docs/CAP.md (text, level, section, subject)",
    ({ entry, id }) => {
      const req = docById.get(id)!;
      const difference = textDifference(String(entry.text), req.text);
      expect(difference, `${id}: text differs from docs/CAP.md line ${req.line}, ${difference}`).toBeNull();
      const keyword = keywordsOf(req.text)[0] ?? "";
      expect(entry.level, `${id}: level differs from the key word "${keyword}" in docs/CAP.md`).toBe(
        levelOf(keyword),
      );
      expect(
        entry.section,
        `${id}: section differs from the heading above docs/CAP.md line ${req.line}`,
      ).toBe(req.section);
      const driverSentence = /^A driver\b/.test(req.text);
      expect(entry.subject, `${id}: subject is "driver" exactly when the sentence starts "A driver"`).toBe(
        driverSentence ? "driver" : "kernel",
      );
      // For a driver obligation, `testable` means cap-conformance driver can check it by playing the kernel.
      if (id.startsWith("CAP-DRV-"))
        expect(entry.subject, `${id}: DRV requirements bind drivers`).toBe("driver");
    },
  );
});

describe("spec/generated/requirements.json", () => {
  it("equals spec/requirements.yaml (run `node scripts/generate.mjs` in spec/ after editing the YAML)", () => {
    const { $comment, ...generated } = JSON.parse(readFileSync(GENERATED, "utf8")) as Record<string, unknown>;
    expect($comment, "the generated file names its generator").toMatch(/Do not edit by hand/);
    const stale = entries
      .filter(
        (entry, i) => JSON.stringify(entry) !== JSON.stringify((generated.requirements as unknown[])?.[i]),
      )
      .map((entry) => String(entry.id));
    expect(stale, "entries that differ: run `node scripts/generate.mjs` in spec/").toEqual([]);
    expect(generated).toEqual(manifest);
  });
});
