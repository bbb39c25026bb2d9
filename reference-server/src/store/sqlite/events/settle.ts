/**
 * SQLite settle: what the holder of a delivery does with it — ack it (one event, or several in one
 * transaction), renew its lease, or release it (ready again at `availableAt`, or failed on the last
 * attempt). Renew and release are fenced: only the delivery that holds a running lease, once. A released
 * delivery keeps state `leased` with its lease moved to `availableAt` and `release_attempts = attempts`,
 * so claim, retire and lease-expiry wake-ups need no change (migrations/002).
 *
 * An ack of a cancelled event records its result once and leaves it cancelled (ACK); a renew or release
 * of one is lease_lost with its cancel reason.
 *
 * Must never: let a delivery that no longer holds its lease renew or release it, or replace the result
 * of an event acked before (the first ack wins).
 */
import type { LeaseLost, ReleaseResult, RenewResult } from "../../contract.js";
import {
  ACK,
  ATTEMPTS_LEFT,
  BUDGET_USED,
  CANCELLED,
  FAIL,
  FENCE,
  MARK_RELEASED,
  UNACKED,
} from "../lease-rules.js";
import { json } from "../rows.js";
import type { SqliteContext, SyncOps } from "../types.js";

type SettleOps = Pick<SyncOps, "ackEvent" | "ackEvents" | "renewLease" | "releaseEvent">;

/** The store's clock in epoch ms, as the event_history triggers write it (migrations/012). */
const STORE_NOW = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)";

/**
 * The ack of one event (single and batch ack): parameters now, result, id, agent. Positional, because
 * binding named parameters from an object was a real share of this short statement's cost.
 */
export const ACK_SQL = `UPDATE events SET ${ACK("?", "?")} WHERE id = ? AND agent_id = ? AND ${UNACKED}`;

export function settleOps({ db, notify }: SqliteContext): SettleOps {
  const q = {
    ack: db.prepare(ACK_SQL),
    owner: db.prepare("SELECT agent_id FROM events WHERE id = ?").pluck(),
    own: db.prepare("SELECT 1 FROM events WHERE id = ? AND agent_id = ?"),
    // Why a renew or release changed nothing: whose event it is, and its cancel reason if it was cancelled.
    lost: db.prepare(
      `SELECT agent_id, CASE WHEN ${CANCELLED} THEN cancel_reason END AS reason FROM events WHERE id = ?`,
    ),
    // The renew's `renewed` event_history row (migrations/012), written before the lease moves, under the
    // renew's own fence: a trigger on lease_expires_at would run on every claim too.
    recordRenew: db.prepare(
      `INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, lease_expires_at)
       SELECT seq, 'renewed', ${STORE_NOW}, attempts, lease_expires_at, @leaseUntil FROM events
        WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")}`,
    ),
    renew: db.prepare(
      `UPDATE events SET lease_expires_at = @leaseUntil
       WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")}`,
    ),
    release: db.prepare(
      `UPDATE events SET lease_expires_at = @availableAt, available_at = @availableAt, ${MARK_RELEASED("@reason")}
       WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")} AND ${ATTEMPTS_LEFT("@maxAttempts")}`,
    ),
    releaseLast: db.prepare(
      `UPDATE events SET ${FAIL("@now", "'released'")}, lease_expires_at = @now, ${MARK_RELEASED("@reason")}
       WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")} AND ${BUDGET_USED("@maxAttempts")}`,
    ),
  };

  // One statement on the hot path; the read only runs for repeated acks and unknown or foreign ids.
  const ack = ({ agentId, eventId, now, result }: Parameters<SyncOps["ackEvent"]>[0]): boolean => {
    if (q.ack.run(now, json(result), eventId, agentId).changes === 1) return true;
    return q.owner.get(eventId) === agentId;
  };

  const ackManyTx = db.transaction(({ agentId, items, now }: Parameters<SyncOps["ackEvents"]>[0]) =>
    items.map(({ eventId, result }) => {
      if (q.ack.run(now, json(result), eventId, agentId).changes === 1) return true;
      return q.own.get(eventId, agentId) !== undefined;
    }),
  );

  /** not_found for an unknown or foreign id; lease_lost otherwise, saying so when the event was cancelled. */
  const notHeld = (eventId: string, agentId: string): LeaseLost | { status: "not_found" } => {
    const r = q.lost.get(eventId) as { agent_id: string; reason: string | null } | undefined;
    if (r?.agent_id !== agentId) return { status: "not_found" };
    return r.reason === null
      ? { status: "lease_lost" }
      : { status: "lease_lost", cancelled: { reason: r.reason } };
  };

  const renewTx = db.transaction(({ agentId, eventId, attempts, leaseMs, now }): RenewResult => {
    const leaseUntil = now + leaseMs;
    const args = { id: eventId, agentId, attempts, now, leaseUntil };
    if (q.recordRenew.run(args).changes === 1) {
      // Same fence, same transaction: the lease moves exactly when its row was written.
      if (q.renew.run(args).changes !== 1) throw new Error(`renew of ${eventId} found no lease to move`);
      return { status: "renewed", leaseExpiresAt: leaseUntil };
    }
    return notHeld(eventId, agentId);
  });

  const releaseTx = db.transaction((input: Parameters<SyncOps["releaseEvent"]>[0]): ReleaseResult => {
    const args = {
      id: input.eventId,
      agentId: input.agentId,
      attempts: input.attempts,
      now: input.now,
      availableAt: input.availableAt,
      maxAttempts: input.maxAttempts,
      reason: input.reason,
    };
    if (q.release.run(args).changes === 1) {
      notify(input.agentId);
      return { status: "released", availableAt: input.availableAt };
    }
    if (q.releaseLast.run(args).changes === 1) return { status: "failed" };
    return notHeld(input.eventId, input.agentId);
  });

  return {
    ackEvent: (input) => ack(input),
    ackEvents: (input) => ackManyTx(input),
    renewLease: (input) => renewTx(input),
    releaseEvent: (input) => releaseTx(input),
  };
}
