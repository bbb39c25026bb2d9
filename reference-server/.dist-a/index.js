/**
 * @commonly/cap-kernel — the CAP v1 reference kernel as a library: build the HTTP app on a store, or use
 * the kernel's services directly. The CLI (`cap-kernel`, src/bin.ts) is built on these.
 */
export { DEFAULT_CONFIG } from "./config.js";
export { buildApp } from "./http/app.js";
export { createKernel } from "./kernel.js";
export { openStore } from "./store/open.js";
export { openSqliteStore } from "./store/sqlite/index.js";
//# sourceMappingURL=index.js.map