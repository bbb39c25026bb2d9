// The shape of every CAP operation in the generated OpenAPI document, read statically: each needs the
// agent's bearer token (no operation opts out of the document-wide security), documents 401, answers
// every error with the CAP `Error` body, and has exactly one success response whose model carries an
// example. (This replaced a test that served the document with the Prism mock, retired in issue 32: a
// stateless mock answers examples, not CAP; see docs/index.md.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(import.meta.dirname, "..");
const doc = parse(readFileSync(join(root, "generated", "cap-v1.openapi.yaml"), "utf8"));
const schemaOf = (name: string) =>
  JSON.parse(readFileSync(join(root, "generated", "json-schema", `${name}.json`), "utf8"));

interface Response {
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Operation {
  security?: unknown[];
  responses: Record<string, Response>;
}
const ops = Object.entries<Record<string, Operation>>(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
);
const refName = (r: Response | undefined) => r?.content?.["application/json"]?.schema?.$ref?.split("/").pop();

describe("the CAP operations of the OpenAPI document", () => {
  it("are the fourteen CAP routes, under a document-wide bearer token", () => {
    expect(ops.length).toBe(14);
    expect(doc.security).toEqual([{ AgentToken: [] }]);
    const scheme = doc.components.securitySchemes.AgentToken;
    expect([scheme.type, scheme.scheme.toLowerCase()]).toEqual(["http", "bearer"]); // case-insensitive (RFC 7235)
  });

  it.each(ops)("%s needs the token, documents 401, and answers errors with the Error body", (_name, op) => {
    expect(op.security).toBeUndefined(); // an operation-level [] would open it to anyone
    expect(Object.keys(op.responses)).toContain("401");
    for (const [status, response] of Object.entries(op.responses))
      if (!status.startsWith("2")) expect(refName(response), status).toBe("Error");
  });

  it.each(ops)("%s has one success response whose model has an example", (_name, op) => {
    const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
    expect(success).toHaveLength(1);
    const name = refName(op.responses[success[0]!]);
    expect(name).toBeDefined();
    expect(schemaOf(name!).examples?.length).toBeGreaterThan(0);
  });
});
