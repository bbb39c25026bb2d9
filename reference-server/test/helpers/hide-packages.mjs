/**
 * `node --import <this file>` makes the packages named in CAP_TEST_HIDE_PACKAGES (comma-separated) resolve
 * as if they were not installed — Node's own errors and messages, for `import` (ERR_MODULE_NOT_FOUND, by a
 * resolution hook) and for `require` (MODULE_NOT_FOUND, by wrapping the CommonJS resolver) — so a test can
 * run the built kernel as an install without its optional peers (pg, openapi-fetch) would. Test code only.
 */
import Module, { register } from "node:module";

const hidden = (process.env.CAP_TEST_HIDE_PACKAGES ?? "").split(",").filter(Boolean);
const hides = (specifier) => hidden.find((h) => specifier === h || specifier.startsWith(`${h}/`));

register(new URL("./hide-packages-hooks.mjs", import.meta.url), { data: { hidden } });

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hides(request)) {
    const err = new Error(`Cannot find module '${request}'`);
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  return resolveFilename.call(this, request, ...rest);
};
