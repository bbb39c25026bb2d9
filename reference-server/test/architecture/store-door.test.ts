/**
 * Services are the only door to the store: inside the kernel only the composition root (src/kernel.ts),
 * the package's public entry (src/index.ts, which offers embedders a store to build the app on), the
 * services and the store itself import `src/store/`; routes, the CLI, metrics and profiles reach it
 * through the services. Outside the kernel, no package's source opens a store: it asks the kernel
 * (`buildApp({db})`, `openKernel`, the testing kit).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const kernelRoot = resolve(import.meta.dirname, "..", "..");
const repoRoot = resolve(kernelRoot, "..");
const src = join(kernelRoot, "src");
const storeDir = join(src, "store");
const MAY_IMPORT_STORE = [/^store\//, /^services\//, /^kernel\.ts$/, /^index\.ts$/];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name === "dist" || e.name === "generated") return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or with import(). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport|\bimport\s*\()\s*["']([^"']+)["']/g)) found.push(m[1]!);
  return found;
}

/** The files under src/store/ that `file` imports (relative specifiers only: the store is internal). */
function storeImportsOf(file: string): string[] {
  return specifiers(file)
    .filter((s) => s.startsWith("."))
    .map((s) => resolve(dirname(file), s))
    .filter((target) => target === storeDir || target.startsWith(`${storeDir}/`))
    .map((target) => relative(src, target));
}

describe("the store's only door", () => {
  it("is imported inside the kernel only by the composition root, the public entry, services and itself", () => {
    const offenders = sources(src)
      .map((file) => ({ file: relative(src, file), imports: storeImportsOf(file) }))
      .filter((f) => f.imports.length > 0 && !MAY_IMPORT_STORE.some((p) => p.test(f.file)));
    expect(offenders).toEqual([]);
  });

  it("sees the imports it polices (the services import the store contract)", () => {
    const imports = storeImportsOf(join(src, "services", "messages.ts"));
    expect(imports.some((i) => i.startsWith("store/"))).toBe(true);
  });

  it("is never opened by another package's source: they ask the kernel for services", () => {
    const packages = ["cli", "conformance", "console", "sdk-ts", "docs", "examples"];
    const opens = /\b(openStore|openSqliteStore|openPostgresStore)\b|cap-kernel\/(src|dist)\/store/;
    const offenders = packages
      .flatMap((p) => sources(join(repoRoot, p)))
      .filter((file) => !file.includes("/test/") && opens.test(readFileSync(file, "utf8")))
      .map((file) => relative(repoRoot, file));
    expect(offenders).toEqual([]);
  });
});
