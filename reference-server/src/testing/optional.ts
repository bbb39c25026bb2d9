/**
 * Loads a dependency of the testing kit that the kernel declares as an optional peer (`openapi-fetch`,
 * `pg`): operators who only run `cap-kernel` never install them, and a test project that uses the kit gets
 * a message naming the package to add instead of Node's bare "Cannot find package".
 * Must never: turn any other failure (a broken install of the package) into "not installed".
 */
import { isMissingPackage } from "../optional-peer.js";

export async function importOptional<T>(name: string, range: string, usedFor: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if (!isMissingPackage(err, name)) throw err;
    throw new Error(
      `${usedFor} needs ${name}, an optional peer dependency of @commonly/cap-kernel that operators do not ` +
        `need and so is not installed with it. Add it to your tests: npm install --save-dev ${name}@${range}`,
    );
  }
}
