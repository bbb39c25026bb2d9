import { type ValidateFunction } from "ajv/dist/2020.js";
export declare const CAP_SCHEMA_BASE = "https://commonly.dev/schemas/cap/v1/";
export type Part = "body" | "query" | "params" | "headers";
export declare class Validators {
    private readonly bodyAjv;
    private readonly queryAjv;
    private readonly capDoc;
    private readonly adminDoc;
    constructor();
    /** A validator for a CAP model, by its generated JSON Schema file name (e.g. "PostMessageRequest"). */
    capModel(name: string): ValidateFunction;
    /** A validator for an admin-surface model, by its OpenAPI component name. */
    adminModel(name: string): ValidateFunction;
    /** Query-parameter validator (coercing strings, applying defaults) for one operation of a spec document. */
    query(surface: "cap" | "admin", method: string, path: string): ValidateFunction;
}
/** Validate (and, for query validators, coerce in place) or throw 400 validation_failed. */
export declare function check(validate: ValidateFunction, value: unknown, part: Part): void;
