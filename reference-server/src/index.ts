/**
 * @commonly/cap-kernel — the CAP v1 reference kernel as a library: build the HTTP app on a store, or use
 * the kernel's services directly. The CLI (`cap-kernel`, src/bin.ts) is built on these.
 */

export { DEFAULT_CONFIG, type KernelConfig, type KernelConfigInput, type KernelLimits } from "./config.js";
export { type BuildAppOptions, buildApp, type KernelApp } from "./http/app.js";
export { createKernel, type Kernel, type KernelOptions } from "./kernel.js";
export type { Store, StoreOps } from "./store/contract.js";
export { openStore } from "./store/open.js";
export { openSqliteStore } from "./store/sqlite/index.js";
