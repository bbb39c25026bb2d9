/**
 * `@commonly/cap-kernel/testing`: the one kit for tests that need a real reference kernel — start it on any
 * store as a process (`--port 0`) or in-process, provisioned (human, pod, agents, tokens), an admin client,
 * deadline polling, child processes, PostgreSQL (a schema of a test's own, or a cluster it may stop), and
 * an OTLP/HTTP receiver for the spans a kernel or driver exports.
 * Node only; test code only: nothing in the kernel imports it.
 */
export { type AdminApi, type AdminClient, adminApi, adminClient, type CallAnswer, call } from "./admin.js";
export { type DeadlineOptions, eventually } from "./deadline.js";
export {
  freshSqliteUrl,
  kernelBin,
  kernelCli,
  kernelMissing,
  provisionConformance,
  type StartKernelOptions,
  startKernel,
  startKernelInProcess,
} from "./kernel.js";
export {
  decodeOtlpJson,
  type OtlpReceiver,
  type ReceivedRequest,
  type ReceivedSpan,
  type ReceivedSpanKind,
  startOtlpReceiver,
} from "./otlp-receiver.js";
export { clusterUnavailable, freshPgSchema, PgCluster, pgSkipReason, pgTestUrl } from "./pg.js";
export { freePort, type Spawned, spawnProcess, waitForPort } from "./process.js";
export { type AnswerSeen, type InterposedProxy, interposeProxy } from "./proxy.js";
export { type StoreOutageSwitch, storeOutageSwitch } from "./store-outage.js";
export type { KernelAgent, PodMessage, QueuedEvent, TestKernel } from "./test-kernel.js";
