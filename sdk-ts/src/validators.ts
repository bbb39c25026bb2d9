/**
 * Compiled JSON Schema validators for every CAP model, generated from spec/generated/json-schema.
 * Portable: no ajv at run time, no Node built-ins. Used by `CapClient`'s `validate: true` mode and
 * by anyone checking a kernel's answers (the conformance suite does).
 */

import { type SchemaName, schemaNames } from "./generated/schema-names.js";
import * as generated from "./generated/validators.js";
import type { GeneratedValidator } from "./validator-runtime.js";

export type { SchemaName } from "./generated/schema-names.js";
export { schemaNames } from "./generated/schema-names.js";

/** One reason a document does not match its schema. `path` is a JSON Pointer into the document. */
export interface ValidationIssue {
  path: string;
  message: string;
  keyword: string;
}

/** The outcome of validating one document. */
export type ValidationResult = { valid: true } | { valid: false; issues: ValidationIssue[] };

const table = generated as unknown as Record<SchemaName, GeneratedValidator>;

function describe(error: NonNullable<GeneratedValidator["errors"]>[number]): ValidationIssue {
  const path = error.instancePath || "/";
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? error.keyword;
  if (error.keyword === "required") message = `is missing required property "${params.missingProperty}"`;
  if (error.keyword === "unevaluatedProperties" || error.keyword === "additionalProperties") {
    const extra = params.unevaluatedProperty ?? params.additionalProperty;
    message = `has unknown property "${String(extra)}"`;
  }
  if (error.keyword === "const") message = `must be ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === "anyOf" || error.keyword === "enum")
    message = error.keyword === "enum" ? `must be one of ${JSON.stringify(params.allowedValues)}` : message;
  return { path, message, keyword: error.keyword };
}

/** Validate `data` against the CAP model `name`. */
export function validate(name: SchemaName, data: unknown): ValidationResult {
  const fn = table[name];
  if (!fn)
    throw new TypeError(`no CAP schema named ${JSON.stringify(name)}; known: ${schemaNames.join(", ")}`);
  if (fn(data)) return { valid: true };
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const e of fn.errors ?? []) {
    // ajv reports each failed union branch; keep one line per path and message.
    const issue = describe(e);
    const key = `${issue.path} ${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return { valid: false, issues };
}

/** Render issues as one line each: `/events/0/attempts must be >= 1`. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.path} ${i.message}`).join("\n");
}
