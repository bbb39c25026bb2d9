/**
 * The rows a store keeps, as plain objects. Shared by the store contract, both store implementations and
 * the services. Times are epoch milliseconds (numbers) everywhere: the services own the clock and pass
 * `now` into every store call, so a store never reads the wall clock itself. JSON-valued fields
 * (payloads, metadata, manifests, memory sections) are stored and returned as parsed JSON values.
 *
 * Must never: carry a raw token (only SHA-256 hex hashes), or anything HTTP-shaped.
 */

/** Who did something: a human user or an agent identity. */
export interface Actor {
  kind: "human" | "agent";
  id: string;
}

export interface UserRecord {
  id: string;
  name: string;
  isAdmin: boolean;
  createdAt: number;
  deletedAt: number | null;
}

/** A human's API token for the admin surface (`cm_user_` + 64 hex); only its SHA-256 is stored. */
export interface UserTokenRecord {
  id: string;
  userId: string;
  hash: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface PodRecord {
  id: string;
  name: string;
  createdBy: string;
  createdAt: number;
}

export type PodRole = "admin" | "member";

export interface MemberRecord {
  podId: string;
  userId: string;
  role: PodRole;
  addedAt: number;
}

/** A published agent manifest in the registry, keyed by agent name. */
export interface RegistryAgentRecord {
  name: string;
  manifest: Record<string, unknown>;
  publishedBy: string;
  createdAt: number;
  updatedAt: number;
}

/** The agent identity `(agentName, instanceId)`: what a runtime token authenticates, what owns memory and events. */
export interface AgentIdentityRecord {
  id: string;
  agentName: string;
  instanceId: string;
  /**
   * The human who owns the identity: only they (or a kernel admin) may install it into a pod or mint its
   * runtime tokens. Null only for an identity no human created (none today; kept for old rows).
   */
  ownerId: string | null;
  createdAt: number;
}

export type InstallationStatus = "active" | "uninstalled";

/** An installation's double-texting policy (InstallationRecord.doubleTexting). */
export type DoubleTexting = "enqueue" | "interrupt";

export interface InstallationRecord {
  id: string;
  agentId: string;
  /** Denormalised from the identity for convenience; always equal to the identity's values. */
  agentName: string;
  instanceId: string;
  podId: string;
  scopes: string[];
  /** false = this installation opted out of `message.posted` fan-out (mentions still arrive). */
  messagePosted: boolean;
  /**
   * What a human's new message in the pod does to the deliveries this identity holds of the pod's events:
   * `enqueue` leaves them (the new event waits its turn), `interrupt` cancels them (feature `cancel`).
   */
  doubleTexting: DoubleTexting;
  /** Whose row this is: the installing human, or the agent itself on an agent-initiated (join code) install. */
  installedBy: Actor;
  /** Always a human user id: the installing human, or the human accountable for an agent-initiated install. */
  authorizedBy: string;
  status: InstallationStatus;
  createdAt: number;
  uninstalledAt: number | null;
  uninstalledBy: string | null;
}

/** A runtime token (`cm_agent_` + 64 hex), issued through one installation by one human. */
export interface RuntimeTokenRecord {
  id: string;
  hash: string;
  agentId: string;
  installationId: string;
  podId: string;
  /** The human who issued it (always a user id). */
  issuedBy: string;
  label: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Everything authentication needs about a runtime token, in one read. */
export interface RuntimeTokenAuth {
  token: RuntimeTokenRecord;
  identity: AgentIdentityRecord;
  installation: InstallationRecord;
  /** The issuing human; `deletedAt` set when that human was deleted. Null only if the row vanished. */
  issuer: UserRecord | null;
}

/**
 * Stored states. "Ready" is derived: pending, or leased with an expired lease and attempts < maxAttempts.
 * `cancelled` is terminal like `acked` and `failed`, and never a failure (feature `cancel`).
 */
export type EventState = "pending" | "leased" | "acked" | "failed" | "cancelled";

/** Who cancelled an event: a human member, the agent itself, an operator, or the kernel (double texting). */
export interface Canceller {
  kind: "human" | "agent" | "operator" | "kernel";
  id: string;
}

export interface NewEvent {
  id: string;
  agentId: string;
  podId: string;
  type: string;
  payload: unknown;
  createdAt: number;
  /** Double texting: the events whose deliveries this event's message cancelled (absent or non-empty). */
  supersedes?: string[] | null;
  /**
   * Feature `trace-context`: the W3C trace context the event carries (its cause's, or the producer span's
   * when tracing is on), validated and normalised; null or absent when it has none. Never changes.
   */
  traceparent?: string | null;
  tracestate?: string | null;
  /**
   * The message that enqueued the event (its fan-out), when a message did; kept beside the payload for the
   * trace view (messageEvents, causeOf), never read back into an EventRecord.
   */
  messageId?: string | null;
}

export interface EventRecord extends NewEvent {
  state: EventState;
  /** Deliveries so far, counted at claim (first delivery = 1); keeps counting up across requeues. */
  attempts: number;
  /**
   * `attempts` at the last operator requeue (0 if never requeued). The event has a budget of maxAttempts
   * deliveries after it: it is retired once `attempts - attemptBase >= maxAttempts` and its lease ends.
   */
  attemptBase: number;
  /** Set while leased (and kept after, for inspection); null when never claimed or after requeue. */
  leaseExpiresAt: number | null;
  ackedAt: number | null;
  /** The ack body's `result`, if any. */
  result: unknown;
  failedAt: number | null;
  /**
   * "max_attempts" when retired by delivery count, "released" when a driver released its last attempt,
   * "uninstalled" when its installation went away.
   */
  failReason: string | null;
  /**
   * `attempts` of the delivery most recently released (null if never released). While the event is
   * `leased` with `releasedAttempts === attempts`, that delivery was given back: nobody holds it, and its
   * `leaseExpiresAt` is the instant it becomes ready again.
   */
  releasedAttempts: number | null;
  /** The `reason` of the most recent release; null when it gave none or there was none. */
  releaseReason: string | null;
  /** The end of the most recent release delay (null if never released). */
  availableAt: number | null;
  /** Why it was cancelled (`requested` when the canceller gave none, `superseded`); null unless cancelled. */
  cancelReason: string | null;
  cancelledAt: number | null;
  /** The canceller's kind and id (Canceller); null unless cancelled. */
  cancelledByKind: Canceller["kind"] | null;
  cancelledById: string | null;
  /** The delivery (its `attempts`) that was held when the event was cancelled; null when none was. */
  cancelledAttempts: number | null;
  supersedes: string[] | null;
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * An event as a claim (or a replayed poll) hands it out: its payload still the JSON text the store holds.
 * The poll answer writes that text as it is, rather than parse every payload only to stringify it again.
 * `parsePayload` reads it where a value is needed.
 */
export interface DeliveredEvent extends Omit<EventRecord, "payload"> {
  payloadJson: string;
}

export interface MessageAuthor {
  kind: "human" | "agent";
  /** user id for humans, agent identity id for agents */
  id: string;
  name: string;
}

export interface MessageRecord {
  id: string;
  podId: string;
  content: string;
  author: MessageAuthor;
  replyToMessageId: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: number;
  /** Feature `trace-context`: the trace context the post was made with (validated); null when none. */
  traceparent: string | null;
  tracestate: string | null;
}

/** The stored memory of one agent identity (server-stamped fields already applied by the service). */
export interface MemoryRecord {
  agentId: string;
  content: string;
  sections: Record<string, unknown>;
  sourceRuntime: string | null;
  /** The dedup key of the last applied sync; cleared (null) by every PUT. */
  syncKey: string | null;
  updatedAt: number;
}

export interface IdempotencyRecord {
  agentId: string;
  key: string;
  /** SHA-256 of the canonical request (pod id + body), to tell a replay from a reuse. */
  requestHash: string;
  podId: string;
  /** The original response, replayed verbatim. */
  status: number;
  body: unknown;
  createdAt: number;
}

export type DecisionClass = "strategy" | "implementation" | "prioritization";

export interface DecisionRecord {
  id: string;
  podId: string;
  agentId: string;
  /** The message that carries the question (posted as the agent). */
  messageId: string;
  decisionClass: DecisionClass;
  title: string;
  question: string;
  options: string[];
  threadRootId: string | null;
  context: string | null;
  createdAt: number;
  answeredAt: number | null;
  answeredBy: string | null;
  answerOption: string | null;
  answerMessageId: string | null;
}

export interface JoinCodeRecord {
  id: string;
  hash: string;
  podId: string;
  /** When set, the code installs only this agent name. */
  agentName: string | null;
  scopes: string[];
  /** The human who created it; becomes `authorizedBy` of the installation it creates. */
  createdBy: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  usedByInstallationId: string | null;
}

export type QueueStats = Record<EventState, number>;
