/**
 * Validators for responses, from the generated CAP JSON Schemas and the admin OpenAPI components, so tests
 * check every answer against the contract rather than against themselves.
 */
import type { ValidateFunction } from "ajv";
import { Validators } from "../../src/http/validation.js";

let v: Validators | null = null;
const get = () => {
  v ??= new Validators();
  return v;
};

export const capValidator = (name: string): ValidateFunction => get().capModel(name);
export const adminValidator = (name: string): ValidateFunction => get().adminModel(name);
