/**
 * `node --import <this file>` makes the packages named in CAP_TEST_HIDE_PACKAGES (comma-separated) resolve
 * as if they were not installed — Node's own ERR_MODULE_NOT_FOUND and message — so a test can run the
 * built kernel as an install without its optional peers (pg, openapi-fetch) would. Test code only.
 */
import { register } from "node:module";

const hidden = (process.env.CAP_TEST_HIDE_PACKAGES ?? "").split(",").filter(Boolean);
register(new URL("./hide-packages-hooks.mjs", import.meta.url), { data: { hidden } });
