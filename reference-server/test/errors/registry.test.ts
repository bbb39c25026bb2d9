/**
 * The kernel's error codes and spec/errors.yaml agree: every code the kernel may send is declared there
 * with one status; every code declared there is known to the kernel; every code thrown in src/ is declared.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, KernelError, loadErrorRegistry } from "../../src/errors/registry.js";

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith(".ts") ? [join(dir, f)] : [],
  );

describe("error registry", () => {
  it("declares every kernel code in spec/errors.yaml, and the kernel knows every declared code", () => {
    const registry = loadErrorRegistry();
    expect([...registry.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const e of registry.values()) {
      expect(e.code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect([400, 401, 403, 404, 408, 409, 410, 413, 415, 422, 429, 431, 500, 503]).toContain(e.status);
      expect(["cap", "admin"]).toContain(e.surface);
    }
  });

  it("only throws declared codes anywhere in src/", () => {
    const used = new Set<string>();
    for (const f of files(src)) {
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(/(?:fail|KernelError|sendError)\(\s*(?:reply,\s*)?"([a-z_]+)"/g))
        used.add(m[1]!);
      for (const m of text.matchAll(/:\s*"([a-z]+_[a-z_]+)",?\s*$/gm))
        if (f.endsWith("errors.ts")) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(25);
    for (const code of used) expect(ERROR_CODES as readonly string[]).toContain(code);
  });

  it("builds errors with the registry status and default message", () => {
    const e = new KernelError("lease_lost");
    expect([e.status, e.message]).toEqual([409, loadErrorRegistry().get("lease_lost")?.message]);
  });
});
