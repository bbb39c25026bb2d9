/**
 * Request bodies for the security tests: JSON text nested to an exact depth (built as text, since building
 * and stringifying a deep value overflows the test's own stack), and every write operation the two OpenAPI
 * documents list, so a test over "every route with a body" grows with the spec.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse } from "yaml";

type Obj = Record<string, unknown>;
const require = createRequire(import.meta.url);

/** JSON text of `depth` nested objects around a number: depth 0 is `1`, depth 2 `{"a":{"a":1}}`. */
export const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** Every write operation (POST, PUT, PATCH, DELETE) of both documents, as `[method, template]`. */
export function writeOperations(): [string, string][] {
  const ops: [string, string][] = [];
  for (const file of ["cap-v1.openapi.yaml", "kernel-admin.openapi.yaml"]) {
    const doc = parse(readFileSync(require.resolve(`@commonly/cap-spec/${file}`), "utf8")) as Obj;
    for (const [path, item] of Object.entries(doc.paths as Obj))
      for (const method of Object.keys(item as Obj))
        if (["post", "put", "patch", "delete"].includes(method)) ops.push([method.toUpperCase(), path]);
  }
  return ops;
}
