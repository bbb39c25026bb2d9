/**
 * Store operations for the event queue: enqueue, claim with leases (a claim for a poll named by `pollId`
 * replays that poll's deliveries while they are held), ack and batch ack, renew, release, retire, requeue,
 * cancel (and the watch's read of a delivery, the double-texting cancel of held deliveries), views, and
 * the trace view's reads of an event's cause and delivery history (semantics: ../README.md).
 */
import type { Canceller, DeliveredEvent, EventRecord, NewEvent, QueueStats } from "../records.js";

export interface ClaimInput {
  agentId: string;
  limit: number;
  leaseMs: number;
  maxAttempts: number;
  now: number;
  /** The poll's id (poll-replay): a repeated poll answers the deliveries claimed under it while held. */
  pollId?: string;
}

export interface ClaimResult {
  /**
   * The claimed events, oldest first (insertion order), each leased until now + leaseMs, attempts + 1;
   * payloads as the stored JSON text.
   */
  events: DeliveredEvent[];
  /** How many expired leases this call observed: re-claimed events plus events it moved to failed. */
  expiredLeases: number;
  /** How many of this agent's events this call moved to `failed` (attempts exhausted, lease over). */
  newlyFailed: number;
}

/** A renew or release that lost its lease because the event was cancelled says so, with the reason. */
export interface LeaseLost {
  status: "lease_lost";
  cancelled?: { reason: string };
}

export type RenewResult = { status: "renewed"; leaseExpiresAt: number } | { status: "not_found" } | LeaseLost;

export type RequeueResult =
  | { status: "requeued"; event: EventRecord }
  | { status: "not_found" }
  | { status: "not_failed"; event: EventRecord };

export type ReleaseResult =
  | { status: "released"; availableAt: number }
  | { status: "failed" }
  | { status: "not_found" }
  | LeaseLost;

export interface CancelInput {
  eventId: string;
  /** The event must be this agent's (CAP: an agent cancels its own), else not_found. */
  agentId?: string;
  /** The event must be in this pod (admin surface: a member or operator cancels in a pod), else not_found. */
  podId?: string;
  by: Canceller;
  reason: string;
  /** An exhausted lease (budget used, lease over) is retired as failed instead, as a claim would. */
  maxAttempts: number;
  now: number;
}

/**
 * What a cancel did: `status` is the event's state after it (`cancelled`, or `acked` / `failed` when it
 * had settled before); `changed` is true exactly when this call cancelled it.
 */
export type CancelResult =
  | { status: "not_found" }
  | { status: "cancelled" | "acked" | "failed"; changed: boolean; agentId: string; podId: string };

/** What the cancellation watch reads of delivery `attempts` of an event (CAP-CANCEL-8, -9, -11). */
export type CancellationState =
  | { status: "not_found" }
  /** That delivery was the one held when the event was cancelled. */
  | { status: "cancelled"; reason: string; cancelledAt: number }
  /** That delivery holds its lease (the renew fence) and nobody cancelled it. */
  | { status: "held"; leaseExpiresAt: number }
  /** Anything else: another delivery, released, acked, lease ended, failed, or cancelled while not held. */
  | { status: "lease_lost" };

/**
 * One recorded transition of an event (event_history, written by the store itself when the event's row
 * changes; feature `trace-context`). Only what the event row does not keep: a delivery renewed, released or
 * found ended (claimed again, retired, cancelled after its lease), and the event failing or cancelled. A
 * claim and an ack are not rows (the first row of a delivery, `leaseWas`, or the event row tells them).
 */
export interface EventTransition {
  eventId: string;
  kind: "renewed" | "released" | "expired" | "failed" | "cancelled";
  /** The row's own instant (a lease end, failedAt, cancelledAt), else the store's clock at the change. */
  at: number;
  /** The event's `attempts` then: the delivery renewed, released, expired, or the last one before. */
  attempt: number;
  /** The delivery's lease end just before the change (null when none was held). */
  leaseWas: number | null;
  /** renewed: the new lease end; released: when the event is ready again (null on the last attempt). */
  leaseExpiresAt: number | null;
  /** released, failed, cancelled. */
  reason: string | null;
  /** cancelled: the canceller. */
  byKind: Canceller["kind"] | null;
  byId: string | null;
}

export interface ReleaseInput {
  agentId: string;
  eventId: string;
  /** The delivery being given back. */
  attempts: number;
  /** When the event becomes ready again (now + delay). */
  availableAt: number;
  reason: string | null;
  maxAttempts: number;
  now: number;
}

export interface EventsStore {
  /** Inserts pending events (attempts 0). Announced as `ready` changes of their agents after commit (store.changes). */
  enqueueEvents(events: NewEvent[]): Promise<void>;
  /**
   * Atomically: move this agent's exhausted events (leased, lease ≤ now, attempts − attemptBase ≥
   * maxAttempts) to failed; then claim up to `limit` ready events (pending, or leased with lease ≤ now) oldest first,
   * setting state leased, attempts + 1, leaseExpiresAt = now + leaseMs. Two concurrent claims (any
   * process) never return the same event.
   *
   * With `pollId`: while deliveries claimed under it for this agent are still held (leased, lease > now,
   * not released, attempts unchanged since), the call returns exactly those, oldest first with their
   * current lease, and claims and retires nothing (expiredLeases = newlyFailed = 0); otherwise it claims as
   * above and records the claim under `pollId`. Concurrent calls with the same (agentId, pollId), in any
   * process, are serialised: the later one sees what the earlier one claimed.
   */
  claimEvents(input: ClaimInput): Promise<ClaimResult>;
  getEvent(id: string): Promise<EventRecord | null>;
  /**
   * Any non-acked state → acked (ackedAt = now, result stored); an acked event stays as it is (the first
   * ack wins). True when the event is the agent's (acked now or before); false when it does not exist or
   * belongs to another agent. No record comes back: the ack is the hot path, and building one (its payload
   * read and parsed) cost more than the update.
   */
  ackEvent(input: { agentId: string; eventId: string; now: number; result: unknown }): Promise<boolean>;
  /**
   * Acks several events in one transaction, each exactly as ackEvent (the first ack of an id wins, also
   * within one call). Returns, per item in order, whether the event is the agent's (now acked).
   */
  ackEvents(input: {
    agentId: string;
    items: { eventId: string; result: unknown }[];
    now: number;
  }): Promise<boolean[]>;
  /** Extends the lease to now + leaseMs iff state leased, attempts equal, lease > now. */
  renewLease(input: {
    agentId: string;
    eventId: string;
    attempts: number;
    leaseMs: number;
    now: number;
  }): Promise<RenewResult>;
  /**
   * Gives a delivery back iff the event is `leased`, its `attempts` equal the given ones, its lease runs
   * (> now) and that delivery was not released already — the fence of renewLease. Then: with budget left,
   * the lease moves to `availableAt` and the delivery is marked released (`releasedAttempts = attempts`),
   * and the agent's long-polls are woken after commit; with the budget used (`attempts - attemptBase >=
   * maxAttempts`) the event becomes `failed` at once (`failReason` "released", failedAt = now). Either way
   * `releaseReason` = reason. `not_found` for unknown/foreign ids, `lease_lost` otherwise.
   */
  releaseEvent(input: ReleaseInput): Promise<ReleaseResult>;
  /** Moves every exhausted event (optionally of one agent) to failed (failedAt = its lease expiry). */
  failExhausted(input: { now: number; maxAttempts: number; agentId?: string }): Promise<number>;
  /** Earliest lease expiry after `now` among this agent's leased events with budget left. */
  nextLeaseExpiry(input: { agentId: string; now: number; maxAttempts: number }): Promise<number | null>;
  /**
   * For each of `agentIds` that has an event ready now or later — pending (ready now), or leased with budget
   * left (ready at its lease expiry) — the earliest such instant; `at <= now` means ready now. Agents with
   * nothing open are absent. One query for many agents: the long-poll backstop.
   */
  readyInstants(input: {
    agentIds: string[];
    now: number;
    maxAttempts: number;
  }): Promise<{ agentId: string; at: number }[]>;
  /** Failed events, newest failure first. */
  listDeadLetters(filter: { agentId?: string; podId?: string; limit: number }): Promise<EventRecord[]>;
  /**
   * failed → pending with attemptBase = attempts (a fresh budget of maxAttempts deliveries; attempts keeps
   * counting up), lease/failure fields cleared; wakes the agent's long-polls.
   */
  requeueEvent(input: { eventId: string; now: number }): Promise<RequeueResult>;
  /** pending/leased events of (agent, pod) → failed with the reason; returns how many. */
  failOpenEvents(input: { agentId: string; podId: string; now: number; reason: string }): Promise<number>;
  /** Events of a pod (all agents), newest first, for the queue view. */
  listPodEvents(input: { podId: string; limit: number }): Promise<EventRecord[]>;
  /** Row counts per stored state. */
  queueStats(): Promise<QueueStats>;
  /**
   * In one transaction: an open event (pending, or leased however) becomes `cancelled` with the reason,
   * time and canceller, keeping attempts and lease; `cancelledAttempts` is the delivery held now (null when
   * none is). An exhausted lease is retired as failed instead. A settled event is left as it is. After
   * commit a change cancels the event on the feed (`cancel`), in every process and replica.
   */
  cancelEvent(input: CancelInput): Promise<CancelResult>;
  /**
   * Double texting, inside the transaction that posts a human's message: every delivery the listed agents
   * hold (HELD at `now`) of an event of `podId` becomes `cancelled` as cancelEvent would; returns them.
   */
  cancelHeldEvents(input: {
    agentIds: string[];
    podId: string;
    by: Canceller;
    reason: string;
    now: number;
  }): Promise<{ agentId: string; eventId: string }[]>;
  /** The watch's read of delivery `attempts` of this agent's event (CancellationState). */
  cancellationOf(input: {
    agentId: string;
    eventId: string;
    attempts: number;
    now: number;
  }): Promise<CancellationState>;
  /** Which of these events are cancelled (the watch hub's sweep after missed announcements). */
  cancelledAmong(eventIds: string[]): Promise<string[]>;
  /** The message that enqueued this event (NewEvent.messageId); null when none did or no such event. */
  causeOf(eventId: string): Promise<string | null>;
  /** The events this message enqueued, oldest first. */
  messageEvents(messageId: string): Promise<EventRecord[]>;
  /** The recorded transitions of these events, in the order they were recorded. */
  eventHistory(eventIds: string[]): Promise<EventTransition[]>;
}
