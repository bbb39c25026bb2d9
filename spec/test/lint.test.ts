/**
 * Both OpenAPI documents pass Redocly's recommended lint (redocly.yaml) with no error and no warning; the
 * only problems allowed are those waived one by one, with a reason, in .redocly.lint-ignore.yaml. Also
 * proves the harness can fail: a copy with a known problem is reported. Runs the CLI as a user would;
 * never writes outside a temporary folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";

const spec = join(dirname(fileURLToPath(import.meta.url)), "..");
const redocly = join(spec, "node_modules", ".bin", "redocly");

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer?: string }[];
}
interface Report {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Problem[];
}

// `redocly lint <api alias or file> --format json` prints one report; the exit code is 1 on errors only.
function lint(target: string): Report {
  const r = spawnSync(redocly, ["lint", target, "--config", join(spec, "redocly.yaml"), "--format", "json"], {
    cwd: spec,
    encoding: "utf8",
    env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_TELEMETRY: "off" },
  });
  if (r.error) throw r.error;
  const start = r.stdout.indexOf("{");
  if (start < 0) throw new Error(`redocly printed no report (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout.slice(start)) as Report;
}

const describeProblems = (report: Report) =>
  report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ""}: ${p.message}`);

describe("Redocly's recommended lint", () => {
  it.each([
    ["cap", "generated/cap-v1.openapi.yaml"],
    ["admin", "generated/kernel-admin.openapi.yaml"],
  ])("finds no error and no warning in the %s document (%s)", (alias) => {
    const report = lint(alias);
    expect(describeProblems(report)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.totals.warnings).toBe(0);
  });

  it("waives only what the ignore file lists, each entry with a reason above it", () => {
    const text = readFileSync(join(spec, ".redocly.lint-ignore.yaml"), "utf8");
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      if (!line.trim().startsWith("- ")) return;
      // The line above an entry is its reason or another entry under the same reason.
      let j = i - 1;
      while (j >= 0 && lines[j].trim().startsWith("- ")) j--;
      expect(lines[j].trim().startsWith("#"), `no reason above ${line.trim()}`).toBe(true);
    });
    // Every waiver still matches a problem: a waiver whose problem went away must be removed.
    const waived = Object.values(parse(text) as Record<string, Record<string, string[]>>)
      .flatMap((rules) => Object.values(rules))
      .flat();
    expect(lint("cap").totals.ignored + lint("admin").totals.ignored).toBe(waived.length);
  });

  describe("can fail", () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-lint-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("reports an operation without a summary as an error", () => {
      const doc = parse(readFileSync(join(spec, "generated", "kernel-admin.openapi.yaml"), "utf8"));
      delete doc.paths["/api/users/me"].get.summary;
      const file = join(dir, "admin-no-summary.yaml");
      writeFileSync(file, stringify(doc));
      const report = lint(file);
      expect(report.totals.errors).toBe(1);
      expect(report.problems.map((p) => p.ruleId)).toEqual(["operation-summary"]);
    });

    it("reports a tag without a description as a warning", () => {
      const doc = parse(readFileSync(join(spec, "generated", "cap-v1.openapi.yaml"), "utf8"));
      delete doc.tags[0].description;
      const file = join(dir, "cap-bare-tag.yaml");
      writeFileSync(file, stringify(doc));
      const ruleIds = lint(file).problems.map((p) => p.ruleId);
      expect(ruleIds).toContain("tag-description");
    });
  });
});
