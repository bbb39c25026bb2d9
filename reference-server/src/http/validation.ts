/**
 * Request validation against the generated contract: CAP bodies against spec/generated/json-schema/*.json,
 * CAP query parameters against the parameters of spec/generated/cap-v1.openapi.yaml, admin bodies and
 * queries against spec/generated/kernel-admin.openapi.yaml — all JSON Schema 2020-12, compiled once with
 * ajv. A failure becomes 400 validation_failed with details.errors [{path, in, message}]: `path` a JSON
 * Pointer into the request part named by `in` (body, query, params, headers).
 * Must never hand-copy a CAP schema: the generated files are the source.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";
import { fail } from "../errors/registry.js";

const require = createRequire(import.meta.url);
// ajv-formats is CommonJS; its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

export const CAP_SCHEMA_BASE = "https://commonly.dev/schemas/cap/v1/";
const ADMIN_ID = "https://commonly.dev/schemas/kernel-admin/components.json";

export type Part = "body" | "query" | "params" | "headers";
type Obj = Record<string, unknown>;

function newAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: coerce, useDefaults: coerce });
  addFormats(ajv);
  return ajv;
}

function specFile(name: string): string {
  return require.resolve(`@commonly/cap-spec/${name}`);
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== "object") return node;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node as Obj))
    out[k] =
      k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "#/$defs/") : rewriteRefs(v);
  return out;
}

function loadOptional(name: string): Obj | null {
  try {
    return parse(readFileSync(specFile(name), "utf8")) as Obj;
  } catch {
    return null;
  }
}

export class Validators {
  private readonly bodyAjv = newAjv(false);
  private readonly queryAjv = newAjv(true);
  private readonly capDoc: Obj;
  private readonly adminDoc: Obj | null;

  constructor() {
    const dir = dirname(specFile("json-schema/Event.json"));
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".json")))
      this.bodyAjv.addSchema(JSON.parse(readFileSync(join(dir, f), "utf8")));
    this.capDoc = parse(readFileSync(specFile("cap-v1.openapi.yaml"), "utf8")) as Obj;
    this.adminDoc = loadOptional("kernel-admin.openapi.yaml");
    const components = ((this.adminDoc?.components as Obj | undefined)?.schemas ?? {}) as Obj;
    const defs = { $id: ADMIN_ID, $defs: rewriteRefs(components) };
    this.bodyAjv.addSchema(defs);
    this.queryAjv.addSchema(defs);
  }

  /** A validator for a CAP model, by its generated JSON Schema file name (e.g. "PostMessageRequest"). */
  capModel(name: string): ValidateFunction {
    const v = this.bodyAjv.getSchema(`${CAP_SCHEMA_BASE}${name}.json`);
    if (!v) throw new Error(`no generated CAP schema ${name}.json`);
    return v;
  }

  /** A validator for an admin-surface model, by its OpenAPI component name. */
  adminModel(name: string): ValidateFunction {
    const v = this.bodyAjv.getSchema(`${ADMIN_ID}#/$defs/${name}`);
    if (!v) throw new Error(`no admin component schema ${name}`);
    return v;
  }

  /**
   * Query-parameter validator (coercing strings, applying defaults) for one operation of a spec document;
   * `maxima` lower parameters' maximum to what this kernel is configured to apply, never raise it (a
   * default above the new maximum becomes the maximum).
   */
  query(
    surface: "cap" | "admin",
    method: string,
    path: string,
    maxima: Record<string, number> = {},
  ): ValidateFunction {
    const narrowed = Object.keys(maxima).length > 0 ? `:${JSON.stringify(maxima)}` : "";
    const id = `${surface}:${method}:${path}:query${narrowed}`;
    const cached = this.queryAjv.getSchema(id);
    if (cached) return cached;
    const doc = surface === "cap" ? this.capDoc : this.adminDoc;
    const op = ((doc?.paths as Obj | undefined)?.[path] as Obj | undefined)?.[method] as Obj | undefined;
    if (!op) throw new Error(`no ${surface} operation ${method.toUpperCase()} ${path}`);
    const properties: Obj = {};
    const required: string[] = [];
    for (const p of (op.parameters ?? []) as Obj[]) {
      if (p.in !== "query") continue;
      properties[p.name as string] = rewriteRefs(p.schema);
      if (p.required) required.push(p.name as string);
    }
    for (const [name, maximum] of Object.entries(maxima)) {
      const schema = properties[name] as Obj | undefined;
      if (!schema || typeof schema.maximum !== "number" || maximum > schema.maximum)
        throw new Error(
          `cannot lower the maximum of ${name} of ${method.toUpperCase()} ${path} to ${maximum}`,
        );
      const fallback =
        typeof schema.default === "number" ? Math.min(schema.default, maximum) : schema.default;
      properties[name] = { ...schema, maximum, ...(fallback !== undefined ? { default: fallback } : {}) };
    }
    return this.queryAjv.compile({
      $id: id,
      type: "object",
      properties,
      required,
    });
  }
}

function problem(e: ErrorObject, part: Part) {
  const missing =
    e.keyword === "required" ? `/${(e.params as { missingProperty: string }).missingProperty}` : "";
  const extra =
    e.keyword === "unevaluatedProperties" || e.keyword === "additionalProperties"
      ? `/${(e.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ?? (e.params as { additionalProperty?: string }).additionalProperty}`
      : "";
  const message =
    e.keyword === "unevaluatedProperties" || e.keyword === "additionalProperties"
      ? "is not an allowed field"
      : (e.message ?? "is invalid");
  return { path: `${e.instancePath}${missing}${extra}` || "/", in: part, message };
}

/** Validate (and, for query validators, coerce in place) or throw 400 validation_failed. */
export function check(validate: ValidateFunction, value: unknown, part: Part): void {
  if (validate(value)) return;
  const seen = new Set<string>();
  const errors = (validate.errors ?? [])
    .filter((e) => e.keyword !== "anyOf" && e.keyword !== "if")
    .map((e) => problem(e, part))
    .filter((p) => !seen.has(p.path + p.message) && seen.add(p.path + p.message));
  fail("validation_failed", undefined, {
    errors: errors.length ? errors : [{ path: "/", in: part, message: "is invalid" }],
  });
}
