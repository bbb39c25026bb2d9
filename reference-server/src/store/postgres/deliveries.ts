/**
 * PostgreSQL ops for the queue verbs added after the first release: release and the
 * deliveries of a `pollId` (semantics: ../README.md). A released delivery keeps state `leased` with its
 * lease moved to `availableAt` and `release_attempts = attempts` (see migrations/002), so the claim, the
 * retire step and the lease-expiry wake-ups of every replica treat it like a lease that ends then; the
 * release NOTIFYs so waiting polls everywhere re-read the agent's next lease end.
 *
 * Must never: read the clock.
 */
import type { DeliveryOpName, StoreOps } from "../contract.js";
import { DELIVERED_EVENT_COLUMNS, EVENT_ROWS } from "../schema.js";
import type { Db } from "./db.js";
import { BUDGET_USED, FENCE, LEASED, MARK_RELEASED } from "./lease-rules.js";
import { toDeliveredEvent } from "./rows.js";

// The batch ack is in acks.ts.
type DeliveryOps = Omit<Pick<StoreOps, DeliveryOpName>, "ackEvents">;

// $1 id, $2 agent, $3 attempts, $4 now, $5 availableAt, $6 maxAttempts, $7 reason, $8 channel, $9 origin.
// One statement: the fence of renew, then either a lease moved to availableAt or, with the budget used,
// failed at once. The notify only for a release that leaves the event deliverable (still leased).
const USED = BUDGET_USED("$6");
const RELEASE = `
  WITH r AS (
    UPDATE events SET
      state = CASE WHEN ${USED} THEN 'failed' ELSE 'leased' END,
      failed_at = CASE WHEN ${USED} THEN $4 ELSE failed_at END,
      fail_reason = CASE WHEN ${USED} THEN 'released' ELSE fail_reason END,
      lease_expires_at = CASE WHEN ${USED} THEN $4 ELSE $5 END,
      available_at = CASE WHEN ${USED} THEN available_at ELSE $5 END,
      ${MARK_RELEASED("$7")}
     WHERE id = $1 AND agent_id = $2 AND ${FENCE("$3", "$4")}
    RETURNING agent_id, state)
  SELECT r.state, CASE WHEN ${LEASED} THEN pg_notify($8, $9 || r.agent_id) END AS notified FROM r`;

const POLL_DELIVERIES = `
  SELECT ${DELIVERED_EVENT_COLUMNS.postgres} FROM ${EVENT_ROWS}
   WHERE agent_id = $1 AND poll_id = $2 AND ${LEASED} AND poll_id IS NOT NULL
     AND ${FENCE("poll_attempts", "$3")}
   ORDER BY e.seq`;

export function deliveryOps(db: Db): DeliveryOps {
  return {
    async releaseEvent({ agentId, eventId, attempts, now, availableAt, maxAttempts, reason }) {
      const rows = await db.query<{ state: string }>(
        RELEASE,
        [eventId, agentId, attempts, now, availableAt, maxAttempts, reason, db.channel, db.origin],
        "cap_release",
      );
      if (rows[0]?.state === "leased") {
        db.wake([agentId]);
        return { status: "released", availableAt };
      }
      if (rows[0]) return { status: "failed" };
      const own = await db.query("SELECT 1 FROM events WHERE id = $1 AND agent_id = $2", [eventId, agentId]);
      return own.length > 0 ? { status: "lease_lost" } : { status: "not_found" };
    },

    async findPollDeliveries({ agentId, pollId, now }) {
      // Serialises a retry racing the original poll (e.g. on another replica) until this transaction
      // commits; outside a transaction the lock is released at once and the read is merely a read.
      await db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 11))", [`${agentId}\n${pollId}`]);
      const rows = await db.query(POLL_DELIVERIES, [agentId, pollId, now], "cap_poll_deliveries");
      return rows.map(toDeliveredEvent);
    },

    async tagPollDeliveries({ agentId, pollId, eventIds }) {
      if (eventIds.length === 0) return;
      await db.query(
        "UPDATE events SET poll_id = $2, poll_attempts = attempts WHERE agent_id = $1 AND id = ANY($3::text[])",
        [agentId, pollId, eventIds],
      );
    },
  };
}
