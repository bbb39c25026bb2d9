/**
 * Response validation against the generated OpenAPI documents: for a (method, route template, status) the
 * schema the spec declares, or a failure when the spec declares no such response at all.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

type Obj = Record<string, unknown>;
const require = createRequire(import.meta.url);
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv2020,
) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

const rewrite = (node: unknown, id: string): unknown => {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, id));
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node as Obj).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string"
        ? v.replace("#/components/schemas/", `${id}#/$defs/`)
        : rewrite(v, id),
    ]),
  );
};

const docs = new Map<string, Obj>();
function doc(surface: "cap" | "admin"): Obj {
  let d = docs.get(surface);
  if (!d) {
    const file = surface === "cap" ? "cap-v1.openapi.yaml" : "kernel-admin.openapi.yaml";
    d = parse(readFileSync(require.resolve(`@commonly/cap-spec/${file}`), "utf8")) as Obj;
    const id = `https://test.local/${surface}.json`;
    ajv.addSchema({ $id: id, $defs: rewrite((d.components as Obj).schemas, id) });
    docs.set(surface, d);
  }
  return d;
}

/** `/pods/:podId/messages` → `/pods/{podId}/messages`. */
export const toTemplate = (fastifyUrl: string) => fastifyUrl.replace(/:([A-Za-z]+)/g, "{$1}");

export function responseValidator(
  surface: "cap" | "admin",
  method: string,
  template: string,
  status: number,
): ValidateFunction {
  const d = doc(surface);
  const op = ((d.paths as Obj)[template] as Obj | undefined)?.[method.toLowerCase()] as Obj | undefined;
  if (!op) throw new Error(`the ${surface} spec has no ${method} ${template}`);
  const res = (op.responses as Obj)[String(status)] as Obj | undefined;
  if (!res) throw new Error(`the ${surface} spec declares no ${status} for ${method} ${template}`);
  const schema = ((res.content as Obj | undefined)?.["application/json"] as Obj | undefined)?.schema;
  if (!schema) throw new Error(`no JSON schema for ${status} of ${method} ${template}`);
  return ajv.compile(rewrite(schema, `https://test.local/${surface}.json`) as Obj);
}
