/**
 * The public types of `runDriver`: options, handler signatures and hook payloads. Kept apart from
 * the loop so a reader can see the whole contract of a driver on one page.
 */
import type { CapClient, PostMessageResult } from "./client.js";
import type { HandledStore } from "./handled-store.js";
import type { Clock, Sleep } from "./internal/client/time.js";
import type { CircuitDecision, FailureClass } from "./internal/driver/circuit.js";
import type {
  AckResult,
  Event,
  HeartbeatTickPayload,
  MentionReceivedPayload,
  MessagePostedPayload,
  SummaryReadyPayload,
  TaskAssignedPayload,
  TraceContext,
} from "./types.js";

export type { Clock, Sleep } from "./internal/client/time.js";
export type { CircuitDecision, FailureClass } from "./internal/driver/circuit.js";

/** Payload types of the documented v1 event types. */
export interface DocumentedPayloads {
  "message.posted": MessagePostedPayload;
  "mention.received": MentionReceivedPayload;
  "heartbeat.tick": HeartbeatTickPayload;
  "summary.ready": SummaryReadyPayload;
  "task.assigned": TaskAssignedPayload;
}

/** An event whose `payload` is typed when `T` is a documented type. */
export type TypedEvent<T extends string = string> = Omit<Event, "type" | "payload"> & {
  type: T;
  payload: T extends keyof DocumentedPayloads ? DocumentedPayloads[T] : Record<string, unknown>;
};

/** What a handler may return: nothing (ack `acknowledged`, or `posted` after `ctx.reply`) or the ack result. */
// biome-ignore lint/suspicious/noConfusingVoidType: lets `async (event) => { … }` handlers type-check.
export type HandlerResult = AckResult | undefined | void;

/** What a handler gets besides the event. */
export interface HandlerContext {
  /**
   * Aborted when the event is cancelled (reason: a `CancelledError` carrying the canceller's `reason`;
   * stop and return, the driver acks `cancelled`), when the lease is lost (`CapSdkError` `lease_lost`),
   * or when shutdown ran out of time. Pass it to your own calls so they stop too.
   */
  readonly signal: AbortSignal;
  /**
   * The driver's client, for reading messages, memory, and so on. For an event with a trace context
   * (or with OpenTelemetry present) it is a view of it whose every call sends `traceContext` as it is at
   * that moment, unless the call passes its own.
   */
  readonly client: CapClient;
  /**
   * The W3C trace context of this turn (CAP feature `trace-context`): the handler's span's (its
   * `invoke_agent` span, or a span of that trace the handler made active) when `@opentelemetry/api` is
   * installed, else the event's as the kernel sent it; `undefined` when there is neither. Every request
   * the driver makes for the event sends it; hand it on to work you start (a process's `TRACEPARENT`
   * and `TRACESTATE`, another service's headers).
   */
  readonly traceContext?: TraceContext | undefined;
  /**
   * Post into the event's pod, threaded under `payload.messageId` when there is one (pass
   * `replyToMessageId: null` to not thread). The `Idempotency-Key` is derived from the event id and
   * the reply's index, so a redelivered event re-posting the same reply does not post twice. Once
   * `signal` has aborted it throws the signal's reason (a `CancelledError` after a cancel) and posts
   * nothing.
   */
  reply(
    content: string,
    options?: { replyToMessageId?: string | null; metadata?: Record<string, unknown> },
  ): Promise<PostMessageResult>;
}

/**
 * Handles one event. Throwing means "not handled": no ack, the batch stops, the retry circuit applies
 * (and, on a kernel with `release`, the event is given back to come back when the circuit's probe is due).
 * (Declared as a method so a handler of a documented type also fits where any event handler goes.)
 */
export type EventHandler<E = Event> = {
  handle(event: E, context: HandlerContext): HandlerResult | Promise<HandlerResult>;
}["handle"];

/**
 * Handlers by event type; documented types get typed payloads, other types plain `Event`s. A map without
 * a handler for the production kernel's `chat.mention` / `thread.mention` / `heartbeat` gives them to the
 * `mention.received` / `heartbeat.tick` handler (`event.type` keeps the name the kernel sent).
 */
export interface HandlerMap {
  "message.posted"?: EventHandler<TypedEvent<"message.posted">>;
  "mention.received"?: EventHandler<TypedEvent<"mention.received">>;
  "heartbeat.tick"?: EventHandler<TypedEvent<"heartbeat.tick">>;
  "summary.ready"?: EventHandler<TypedEvent<"summary.ready">>;
  "task.assigned"?: EventHandler<TypedEvent<"task.assigned">>;
  [type: string]: EventHandler | undefined;
}

/** Where a non-fatal failure happened. */
export type DriverStage = "handler" | "ack" | "renew" | "release" | "info" | "store" | "watch";

/** Hooks for logging and metrics. The driver prints nothing itself; a hook that throws is ignored. */
export interface DriverHooks {
  /** An event was received (before dedup and dispatch). */
  onEvent?(event: Event): void;
  /**
   * An ack was accepted (alone, or as an item of a batch ack); `duplicate` when the event had been
   * handled before and the handler was not run.
   */
  onAck?(info: { event: Event; result: AckResult; duplicate: boolean }): void;
  /**
   * An event was given back to the kernel (feature `release`): a failed handler's event with the
   * circuit's delay, the unstarted rest of its batch, or what was not started or finished at stop
   * (delay 0). `status` is `failed` when the released delivery used the event's last attempt.
   */
  onRelease?(info: {
    event: Event;
    delaySeconds: number;
    reason: string;
    status: "pending" | "failed";
  }): void;
  /** A handler, ack, renew, release, info, store or cancellation-watch call failed; the loop goes on. */
  onError?(info: { stage: DriverStage; error: unknown; event?: Event; failureClass?: FailureClass }): void;
  /** The retry circuit decided a delay after a handler failure. */
  onCircuit?(info: CircuitDecision & { eventId: string }): void;
  /** A poll failed; the next one waits `delayMs`. `consecutive` 401/403 answers stop the driver at 3. */
  onPollError?(info: { error: unknown; consecutive: number; delayMs: number }): void;
  /**
   * A batch could not be settled — its acks failed (other than `event_not_found`) or were answered
   * with something the driver cannot act on, or the poll delivered again events whose acks the kernel
   * had confirmed — so the next poll waits `delayMs`: the poll interval, doubling with each such
   * batch in a row up to 15 minutes, plus the agent's stable offset, never less than a `Retry-After`.
   */
  onBackoff?(info: { reason: string; consecutive: number; delayMs: number }): void;
  /**
   * The lease of a held event (running, or fetched and waiting) was renewed: by a renew, or, for a
   * running handler on a kernel with `cancel`, by the end of a cancellation watch without a cancel.
   */
  onRenew?(info: { event: Event; leaseExpiresAt: string }): void;
  /**
   * The lease of a held event was lost: a running handler's signal was aborted, a waiting event will
   * not be started; neither is acked.
   */
  onLeaseLost?(info: { event: Event; error: unknown }): void;
  /**
   * The kernel cancelled an event this driver holds (feature `cancel`: its watch answered, or a renew
   * was answered 409 with `details.cancelled`): a running handler's signal was aborted with a
   * `CancelledError`, a waiting event will not be started; either is acked `cancelled` once its handler
   * has settled (at most `shutdownTimeoutMs` later) — unless the handler had already finished, whose
   * own result is acked then. `reason` is the canceller's (`requested`, `superseded`, …); `requestedAt`
   * when the kernel said.
   */
  onCancel?(info: { event: Event; reason: string; requestedAt?: string }): void;
  /** The driver chose (or fell back to) interval polling or long-polling. */
  onPollMode?(info: { mode: "long-poll" | "interval"; reason: string }): void;
}

export interface DriverOptions extends DriverHooks {
  client: CapClient;
  /** One handler for every event type, or handlers by type (other types go to `onUnknown`). */
  handle: EventHandler | HandlerMap;
  /** Handles types missing from a `handle` map; without it they are acked `skipped`. */
  onUnknown?: EventHandler;
  /** Stops the driver: polling ends, the running handler gets `shutdownTimeoutMs` to finish. */
  signal?: AbortSignal;
  /**
   * Events per poll, capped by `/info` `maxLimit`. Default: 10, doubled up to `maxLimit` while full pages
   * are handled within a tenth of a lease, and back to 10 after a batch that takes more than a quarter.
   */
  limit?: number;
  /** Long-poll wait (default 20 s, capped by `/info` `maxWaitSeconds`; 0 for interval polling). */
  waitSeconds?: number;
  /** Interval polling period, and the base of the poll and ack backoffs and the runtime retry steps (default 5000 ms). */
  pollIntervalMs?: number;
  /** Handlers running at once (default 1); events of one pod never run concurrently. */
  concurrency?: number;
  /** Handled-ids store (default a `MemoryHandledStore` of 1000 ids). */
  store?: HandledStore;
  /** Renew each held lease once this fraction of it has passed (default 0.5). */
  renewAt?: number;
  /** Lease length to assume when neither `/info` nor `leaseExpiresAt` says (default 30 s). */
  leaseSeconds?: number;
  /**
   * How long a running handler may finish after `signal` aborts before it is given up and released, and
   * how long the driver waits for a cancelled handler to settle before it acks the event `cancelled`
   * anyway (default 10 s).
   */
  shutdownTimeoutMs?: number;
  /**
   * The agent's name, for the OpenTelemetry span of each event (`invoke_agent {agentName}`,
   * `gen_ai.agent.name`, `messaging.destination.name`); without it the span is named `invoke_agent`.
   */
  agentName?: string;
  /** Seeds the stable 0–20 % delay offset (default: the client's token fingerprint). */
  agentKey?: string;
  /** Milliseconds since the epoch (injectable for tests). */
  clock?: Clock;
  /** Waits, resolving early on abort (injectable for tests). */
  sleep?: Sleep;
}

/** Counts of what a driver did, returned when it stops gracefully. */
export interface DriverSummary {
  polls: number;
  /** Events whose handler completed and that were acked (or whose ack was attempted). */
  handled: number;
  /** Redeliveries of handled events, re-acked without running the handler. */
  duplicates: number;
  /** Events of unknown types acked `skipped`. */
  skipped: number;
  /** Handler failures (no ack). */
  failures: number;
  /**
   * Events given up without an ack and without a handler result: the lease was lost (running or
   * waiting), or the shutdown grace ran out before the handler finished.
   */
  released: number;
  /** Events handed back with the `release` verb (see `onRelease`). */
  returned: number;
  /**
   * Events the kernel cancelled while this driver held them (feature `cancel`), acked `cancelled`: the
   * running handler was aborted, or a waiting one never started (see `onCancel`).
   */
  cancelled: number;
}
