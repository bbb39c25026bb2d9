/** The exit-code registry and the table in docs/local-cli-driver.md say the same thing. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI_ERRORS, CliError } from "../src/errors.js";

const doc = readFileSync(new URL("../../docs/local-cli-driver.md", import.meta.url), "utf8");

function documented(): Record<string, { exit: number; meaning: string }> {
  const section = doc.slice(
    doc.indexOf("## Exit codes"),
    doc.indexOf("\n## ", doc.indexOf("## Exit codes") + 1),
  );
  const rows: Record<string, { exit: number; meaning: string }> = {};
  for (const m of section.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)) {
    rows[m[1]!] = { exit: Number(m[2]), meaning: m[3]! };
  }
  return rows;
}

describe("CLI error registry", () => {
  it("matches the exit-code table of the user guide, row for row", () => {
    const fromRegistry = Object.fromEntries(
      Object.entries(CLI_ERRORS).map(([code, e]) => [code, { exit: e.exitCode, meaning: e.summary }]),
    );
    expect(documented()).toEqual(fromRegistry);
  });

  it("gives every code its own exit status, none of them 0 or 1", () => {
    const statuses = Object.values(CLI_ERRORS).map((e) => e.exitCode);
    expect(new Set(statuses).size).toBe(statuses.length);
    expect(statuses.every((s) => s > 1 && s < 126)).toBe(true);
  });

  it("carries code and exit status on the error, and survives a second copy of the module", () => {
    const err = new CliError("token_revoked", "revoked");
    expect(err).toMatchObject({ code: "token_revoked", exitCode: 6, name: "CliError" });
    expect({ [Symbol.for("commonly.cli.CliError")]: true }).toBeInstanceOf(CliError);
  });
});
