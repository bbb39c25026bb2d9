/**
 * Loads a dependency of the testing kit that the kernel declares as an optional peer (`openapi-fetch`,
 * `pg`), where it is first needed: operators who only run `cap-kernel` never install them, and a test
 * project that uses the kit gets a message naming the package to add instead of Node's bare "Cannot find".
 * `requireOptional` is synchronous (openapi-fetch ships CommonJS too), so the kit has no top-level await
 * and a CommonJS test file can still `require()` it.
 * Must never: turn any other failure (a broken install of the package) into "not installed".
 */
import { createRequire } from "node:module";
import { isMissingPackage } from "../optional-peer.js";

const require = createRequire(import.meta.url);

function missing(name: string, range: string, usedFor: string): Error {
  return new Error(
    `${usedFor} needs ${name}, an optional peer dependency of @commonly/cap-kernel that operators do not ` +
      `need and so is not installed with it. Add it to your tests: npm install --save-dev ${name}@${range}`,
  );
}

export async function importOptional<T>(name: string, range: string, usedFor: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if (isMissingPackage(err, name)) throw missing(name, range, usedFor);
    throw err;
  }
}

export function requireOptional<T>(name: string, range: string, usedFor: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    if (isMissingPackage(err, name)) throw missing(name, range, usedFor);
    throw err;
  }
}
