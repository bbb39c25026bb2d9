/**
 * The CAP v1 model types, generated from the OpenAPI document. `paths` and `components` are the raw
 * openapi-typescript output for use with openapi-fetch; the named aliases are what most code wants.
 */
import type { components } from "./generated/cap-v1.js";

export type { components, operations, paths } from "./generated/cap-v1.js";

type Schemas = components["schemas"];
export type Event = Schemas["Event"];
export type EventList = Schemas["EventList"];
export type AckOutcome = Schemas["AckOutcome"];
export type AckResult = Schemas["AckResult"];
export type AckRequest = Schemas["AckRequest"];
export type AckResponse = Schemas["AckResponse"];
export type RenewRequest = Schemas["RenewRequest"];
export type RenewResponse = Schemas["RenewResponse"];
export type ReleaseRequest = Schemas["ReleaseRequest"];
export type ReleaseResponse = Schemas["ReleaseResponse"];
export type BatchAckItem = Schemas["BatchAckItem"];
export type BatchAckRequest = Schemas["BatchAckRequest"];
export type BatchAckResponse = Schemas["BatchAckResponse"];
export type BatchAckSettled = Schemas["BatchAckSettled"];
export type BatchAckRefused = Schemas["BatchAckRefused"];
export type CancelRequest = Schemas["CancelRequest"];
export type CancelResponse = Schemas["CancelResponse"];
export type Cancellation = Schemas["Cancellation"];
export type CancellationRequested = Schemas["CancellationRequested"];
export type CancellationNotRequested = Schemas["CancellationNotRequested"];
export type Author = Schemas["Author"];
export type PostMessageRequest = Schemas["PostMessageRequest"];
export type PostMessageResponse = Schemas["PostMessageResponse"];
export type PodMessage = Schemas["PodMessage"];
export type PodMessageList = Schemas["PodMessageList"];
export type MemoryEnvelope = Schemas["MemoryEnvelope"];
export type MemorySection = Schemas["MemorySection"];
export type MemorySectionsInput = Schemas["MemorySectionsInput"];
export type PutMemoryRequest = Schemas["PutMemoryRequest"];
export type PutMemoryResponse = Schemas["PutMemoryResponse"];
export type SyncMemoryRequest = Schemas["SyncMemoryRequest"];
export type SyncMemoryResponse = Schemas["SyncMemoryResponse"];
export type Info = Schemas["Info"];
export type DecisionRequest = Schemas["DecisionRequest"];
export type DecisionResponse = Schemas["DecisionResponse"];
export type CapErrorBody = Schemas["Error"];
/** W3C trace context (CAP feature `trace-context`): what caused an event; a request sends it as its headers. */
export type TraceContext = Schemas["TraceContext"];
export type MessagePostedPayload = Schemas["MessagePostedPayload"];
export type MentionReceivedPayload = Schemas["MentionReceivedPayload"];
export type HeartbeatTickPayload = Schemas["HeartbeatTickPayload"];
export type SummaryReadyPayload = Schemas["SummaryReadyPayload"];
export type TaskAssignedPayload = Schemas["TaskAssignedPayload"];
