/**
 * fast-check arbitraries made from the generated JSON Schemas (spec/generated/json-schema for CAP, the
 * admin OpenAPI document's components for the admin surface): values that satisfy a request schema, for
 * property tests to send as they are or broken. Covers the keywords the request schemas use — type,
 * properties, required, items, min/max (Length, Items, imum), pattern, const, anyOf, $ref (local and to a
 * sibling file) — and an open object (`unevaluatedProperties: {}`, e.g. metadata) as any small JSON object.
 * Must never hand-write a schema: a new field in the spec is generated here the next run.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { parse } from "yaml";

type Schema = Record<string, unknown>;
const require = createRequire(import.meta.url);
const CAP_DIR = dirname(require.resolve("@commonly/cap-spec/json-schema/Event.json"));

const capFile = (name: string) => JSON.parse(readFileSync(join(CAP_DIR, name), "utf8")) as Schema;
const adminDoc = parse(
  readFileSync(require.resolve("@commonly/cap-spec/kernel-admin.openapi.yaml"), "utf8"),
) as Schema;

function pointer(root: Schema, path: string): Schema {
  let node: unknown = root;
  for (const part of path.split("/").filter(Boolean)) node = (node as Schema)[part];
  if (!node) throw new Error(`no schema at #${path}`);
  return node as Schema;
}

/** JSON text the strings of a body may hold: every code point, NUL and lone surrogates included. */
const anyText = (min = 0, max = 40) => fc.string({ unit: "binary", minLength: min, maxLength: max });

function build(schema: Schema, root: Schema): fc.Arbitrary<unknown> {
  const ref = schema.$ref as string | undefined;
  if (ref) {
    const [file, path = ""] = ref.split("#");
    const target = file ? capFile(file.slice(file.lastIndexOf("/") + 1)) : root;
    return build(pointer(target, path), target);
  }
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => build(s, root)));
  switch (schema.type) {
    case "string": {
      if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern));
      const min = (schema.minLength as number | undefined) ?? 0;
      return anyText(min, Math.max(min, (schema.maxLength as number | undefined) ?? 40));
    }
    case "integer":
      return fc.integer({ min: (schema.minimum as number) ?? -1e6, max: (schema.maximum as number) ?? 1e6 });
    case "number":
      return fc.double({
        min: (schema.minimum as number) ?? -1e6,
        max: (schema.maximum as number) ?? 1e6,
        noNaN: true,
      });
    case "boolean":
      return fc.boolean();
    case "array": {
      const items = schema.items ? build(schema.items as Schema, root) : fc.jsonValue({ maxDepth: 2 });
      const minLength = (schema.minItems as number | undefined) ?? 0;
      return fc.array(items, {
        minLength,
        maxLength: Math.max(minLength, Math.min(4, (schema.maxItems as number) ?? 4)),
      });
    }
    case "object": {
      const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      if (props.length === 0)
        return fc.dictionary(anyText(1, 8), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
      const model = Object.fromEntries(props.map(([k, s]) => [k, build(s, root)]));
      return fc.record(model, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of a CAP request model, by its generated file name (e.g. "PostMessageRequest"). */
export function capBody(name: string): fc.Arbitrary<unknown> {
  const root = capFile(`${name}.json`);
  return build(root, root);
}

/** Values of an admin request model, by its OpenAPI component name (e.g. "EmitEventRequest"). */
export function adminBody(name: string): fc.Arbitrary<unknown> {
  return build(pointer(adminDoc, `/components/schemas/${name}`), adminDoc);
}
