/**
 * `@commonly/cap-console/testing`: end-to-end helpers shared by the console's browser test and the examples'
 * tests — a real `cap-kernel` on a fresh SQLite file, child processes in their own group, deadline polling.
 * Node only; test code only.
 */
export {
  type AdminClient,
  adminClient,
  type KernelAgent,
  kernelBin,
  type StartKernelOptions,
  startKernel,
  type TestKernel,
} from "./kernel.js";
export { clusterUnavailable, PgCluster } from "./pg-cluster.js";
export { type Spawned, spawnProcess, waitFor } from "./process.js";
export { type AnswerSeen, type InterposedProxy, interposeProxy } from "./proxy.js";
