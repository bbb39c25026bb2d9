/**
 * The static import graph of a built ES module: every file reachable through `import … from` and
 * `export … from` (not dynamic `import()`), with bare specifiers resolved from sdk-ts. Used by the
 * portability and size-budget tests.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";

const sdk = resolve(import.meta.dirname, "..", "..");
const STATIC = /(?:^|[\s;])(?:import|export)\s*(?:[^"'`;]*?\sfrom\s*)?["']([^"']+)["']/g;

export interface GraphFile {
  path: string;
  code: string;
  /** Specifiers this file imports statically. */
  imports: string[];
}

function resolveBare(specifier: string): string {
  const require = createRequire(join(sdk, "package.json"));
  const pkgJson = require.resolve(`${specifier}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgJson, "utf8"));
  const entry = pkg.exports?.["."]?.import?.default ?? pkg.exports?.["."]?.import ?? pkg.module ?? pkg.main;
  return join(dirname(pkgJson), typeof entry === "string" ? entry : "index.js");
}

export function staticGraph(entry: string): GraphFile[] {
  const seen = new Map<string, GraphFile>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    const code = readFileSync(path, "utf8");
    const imports = [...code.matchAll(STATIC)].map((m) => m[1]!);
    seen.set(path, { path, code, imports });
    for (const spec of imports) {
      if (spec.startsWith(".")) visit(resolve(dirname(path), spec));
      else if (!spec.startsWith("node:")) visit(resolveBare(spec));
    }
  };
  visit(resolve(entry));
  return [...seen.values()];
}

export { resolveBare };
