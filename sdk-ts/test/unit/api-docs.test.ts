import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const sdk = resolve(import.meta.dirname, "..", "..");

describe("docs/api.md", () => {
  it("is what scripts/api-docs.mjs generates from the TSDoc (run `pnpm docs` after changing an export)", async () => {
    const result = await promisify(execFile)(process.execPath, ["scripts/api-docs.mjs", "--check"], {
      cwd: sdk,
    }).catch((e) => e);
    expect(result.stderr ?? "").toBe("");
    expect(result.code ?? 0).toBe(0);
  }, 60_000);
});
