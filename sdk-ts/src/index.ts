/**
 * `@commonly/cap-sdk`: a typed CAP v1 client and a driver runtime. Everything exported here is
 * public API and runs wherever `fetch` runs (Node ≥ 20, Deno, Bun, browsers): no Node built-ins may
 * be reachable from this file. Node-only helpers live in `@commonly/cap-sdk/node`, the validators in
 * `@commonly/cap-sdk/validators`.
 */
export {
  CapClient,
  type CapClientOptions,
  type PostMessageOptions,
  type PostMessageResult,
  type RequestOptions,
  type ResponseValidator,
} from "./client.js";
export { runDriver } from "./driver.js";
export type {
  CircuitDecision,
  Clock,
  DocumentedPayloads,
  DriverHooks,
  DriverOptions,
  DriverStage,
  DriverSummary,
  EventHandler,
  FailureClass,
  HandlerContext,
  HandlerMap,
  HandlerResult,
  Sleep,
  TypedEvent,
} from "./driver-types.js";
export { CancelledError, CapHttpError, CapSdkError, type CapSdkErrorCode } from "./errors.js";
export { type HandledStore, MemoryHandledStore } from "./handled-store.js";
export type { RetryPolicy } from "./internal/client/transport.js";
export type {
  AckOutcome,
  AckResult,
  Cancellation,
  CancelRequest,
  CancelResponse,
  CapErrorBody,
  DecisionRequest,
  DecisionResponse,
  Event,
  EventList,
  Info,
  MemoryEnvelope,
  PodMessage,
  PodMessageList,
  PostMessageRequest,
  PostMessageResponse,
  PutMemoryRequest,
  SyncMemoryRequest,
  TraceContext,
} from "./types.js";
export { SDK_VERSION } from "./version.js";
