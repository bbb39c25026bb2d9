/**
 * SQLite settle: what the holder of a delivery does with it — ack it (one event, or several in one
 * transaction), renew its lease, or release it (ready again at `availableAt`, or failed on the last
 * attempt). Renew and release are fenced: only the delivery that holds a running lease, once. A released
 * delivery keeps state `leased` with its lease moved to `availableAt` and `release_attempts = attempts`,
 * so claim, retire and lease-expiry wake-ups need no change (migrations/002).
 *
 * Must never: let a delivery that no longer holds its lease renew or release it, or replace the result
 * of an event acked before (the first ack wins).
 */
import type { ReleaseResult, RenewResult } from "../../contract.js";
import { ACK, ATTEMPTS_LEFT, BUDGET_USED, FAIL, FENCE, MARK_RELEASED, UNACKED } from "../lease-rules.js";
import { json } from "../rows.js";
import type { SqliteContext, SyncOps } from "../types.js";

type SettleOps = Pick<SyncOps, "ackEvent" | "ackEvents" | "renewLease" | "releaseEvent">;

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

  const renewTx = db.transaction(({ agentId, eventId, attempts, leaseMs, now }): RenewResult => {
    const leaseUntil = now + leaseMs;
    if (q.renew.run({ id: eventId, agentId, attempts, now, leaseUntil }).changes === 1)
      return { status: "renewed", leaseExpiresAt: leaseUntil };
    return q.owner.get(eventId) === agentId ? { status: "lease_lost" } : { status: "not_found" };
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
    return q.owner.get(input.eventId) === input.agentId ? { status: "lease_lost" } : { status: "not_found" };
  });

  return {
    ackEvent: (input) => ack(input),
    ackEvents: (input) => ackManyTx(input),
    renewLease: (input) => renewTx(input),
    releaseEvent: (input) => releaseTx(input),
  };
}
