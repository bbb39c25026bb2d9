/**
 * `@commonly/cap-kernel/testing`: the one kit for tests that need a real reference kernel — start it on any
 * store as a process (`--port 0`) or in-process, provisioned (human, pod, agents, tokens), an admin client,
 * deadline polling, child processes, and PostgreSQL (a schema of a test's own, or a cluster it may stop).
 * Node only; test code only: nothing in the kernel imports it.
 */
export { adminApi, adminClient, call } from "./admin.js";
export { eventually } from "./deadline.js";
export { freshSqliteUrl, kernelBin, kernelCli, kernelMissing, provisionConformance, startKernel, startKernelInProcess, } from "./kernel.js";
export { clusterUnavailable, freshPgSchema, PgCluster, pgSkipReason, pgTestUrl } from "./pg.js";
export { freePort, spawnProcess, waitForPort } from "./process.js";
export { interposeProxy } from "./proxy.js";
//# sourceMappingURL=index.js.map