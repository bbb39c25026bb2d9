import { expect } from "vitest";
import { AdapterError } from "../../src/adapters/adapter-error.js";

/** The AdapterError a spawn rejects with; fails the test when it resolves or rejects with anything else. */
export async function failure(p: Promise<unknown>): Promise<AdapterError> {
  const err = await p.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdapterError);
  return err as AdapterError;
}
