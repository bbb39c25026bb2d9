/** docs/conformance.md and the README describe the tool as it is: families and counts, flags, variables, exit codes, formats. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { families } from "../src/check.js";
import { allChecks } from "../src/checks/index.js";
import { flagsFromEnv, reportFormats } from "../src/config/settings.js";
import { verdictOf } from "../src/runner/results.js";
import { brokenKernels } from "./broken/index.js";

const docs = readFileSync(join(import.meta.dirname, "..", "..", "docs", "conformance.md"), "utf8");
const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");

describe("docs/conformance.md", () => {
  it("lists every family with its number of checks, and the total", () => {
    for (const f of families) {
      const n = allChecks.filter((c) => c.family === f).length;
      expect(docs, `family ${f}`).toMatch(new RegExp(`\\| ${f} +\\| ${n} +\\|`));
    }
    expect(docs).toContain(`${allChecks.length} checks in all`);
    expect(readme).toContain(`${allChecks.length} checks:`);
  });

  it("documents every CAP_CONFORMANCE_* variable the tool reads", () => {
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_t, key: string) => {
        read.add(key);
        return undefined;
      },
    });
    const read = new Set<string>();
    flagsFromEnv(env);
    for (const name of [
      "FIXTURE",
      "URL",
      "ONLY",
      "SKIP",
      "LEVEL",
      "STRICT",
      "LEASE_SECONDS",
      "MAX_ATTEMPTS",
      "TIME_SCALE",
      "BASELINE",
      "REPORT",
      "TRACE",
      "TRIGGER_CMD",
      "CLAIM",
      "CANARY_HOST",
      "REQUIREMENTS",
    ])
      expect(read.has(`CAP_CONFORMANCE_${name}`)).toBe(true);
    for (const key of read) if (!/_(URLS|FEATURES)$/.test(key)) expect(docs, key).toContain(`\`${key}\``);
  });

  it("gives the number of broken kernels the suite is proven against", () => {
    expect(docs).toContain(`(${brokenKernels.length} in all,`);
    expect(readme).toContain(`${brokenKernels.length} broken`);
  });

  it("documents the four exit codes and every report format", () => {
    for (const code of [0, 1, 2, 3]) expect(docs).toMatch(new RegExp(`\\| \`${code}\` +\\|`));
    for (const f of reportFormats) expect(docs).toContain(`\`${f}\``);
  });

  it("gives the same exit-code table in the README, with the verdict the tool prints for each code", () => {
    const table = (md: string) => md.match(/^\| code \| verdict .*\n(?:\|.*\n)+/m)?.[0];
    expect(table(docs)).toBeDefined();
    expect(table(readme)).toBe(table(docs));
    for (const code of [0, 1, 3] as const)
      expect(table(docs)).toMatch(new RegExp(`^\\| \`${code}\` +\\| \`${verdictOf(code)}\` +\\|`, "m"));
  });
});
