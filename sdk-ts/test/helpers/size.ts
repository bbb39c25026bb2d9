/**
 * Measures the root export the way a bundler ships it: every file statically reachable from
 * dist/index.js (openapi-fetch included, the lazily imported validators excluded), comments removed
 * by the TypeScript printer, indentation and blank lines dropped, then gzip -9.
 */
import { gzipSync } from "node:zlib";
import ts from "typescript";
import { staticGraph } from "./module-graph.js";

/** Keep equal to README.md § Size. */
export const ROOT_GZIP_BUDGET_BYTES = 20 * 1024;

export function measureRoot() {
  const files = staticGraph(new URL("../../dist/index.js", import.meta.url).pathname);
  const stripped = files
    .map(({ code }) =>
      ts
        .transpileModule(code, {
          compilerOptions: {
            removeComments: true,
            target: ts.ScriptTarget.ES2022,
            module: ts.ModuleKind.ESNext,
          },
        })
        .outputText.split("\n")
        .map((line) => line.trim())
        .filter(Boolean)
        .join("\n"),
    )
    .join("\n");
  return {
    files: files.map((f) => f.path),
    rawBytes: files.reduce((n, f) => n + Buffer.byteLength(f.code), 0),
    strippedBytes: Buffer.byteLength(stripped),
    gzipBytes: gzipSync(stripped, { level: 9 }).length,
  };
}
