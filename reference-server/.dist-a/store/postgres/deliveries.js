import { DELIVERED_EVENT_COLUMNS, EVENT_ROWS } from "../schema.js";
import { toDeliveredEvent } from "./rows.js";
// $1 id, $2 agent, $3 attempts, $4 now, $5 availableAt, $6 maxAttempts, $7 reason, $8 channel, $9 origin.
// One statement: the fence of renew, then either a lease moved to availableAt or, with the budget used,
// failed at once. The notify only for a release that leaves the event deliverable.
const RELEASE = `
  WITH r AS (
    UPDATE events SET
      state = CASE WHEN attempts - attempt_base >= $6 THEN 'failed' ELSE 'leased' END,
      failed_at = CASE WHEN attempts - attempt_base >= $6 THEN $4 ELSE failed_at END,
      fail_reason = CASE WHEN attempts - attempt_base >= $6 THEN 'released' ELSE fail_reason END,
      lease_expires_at = CASE WHEN attempts - attempt_base >= $6 THEN $4 ELSE $5 END,
      available_at = CASE WHEN attempts - attempt_base >= $6 THEN available_at ELSE $5 END,
      release_attempts = attempts,
      release_reason = $7
     WHERE id = $1 AND agent_id = $2 AND attempts = $3 AND state = 'leased' AND lease_expires_at > $4
       AND (release_attempts IS NULL OR release_attempts <> attempts)
    RETURNING agent_id, state)
  SELECT r.state, CASE WHEN r.state = 'leased' THEN pg_notify($8, $9 || r.agent_id) END AS notified FROM r`;
const POLL_DELIVERIES = `
  SELECT ${DELIVERED_EVENT_COLUMNS.postgres} FROM ${EVENT_ROWS}
   WHERE agent_id = $1 AND poll_id = $2 AND state = 'leased' AND poll_id IS NOT NULL
     AND poll_attempts = attempts AND lease_expires_at > $3
     AND (release_attempts IS NULL OR release_attempts <> attempts)
   ORDER BY e.seq`;
export function deliveryOps(db) {
    return {
        async releaseEvent({ agentId, eventId, attempts, now, availableAt, maxAttempts, reason }) {
            const rows = await db.query(RELEASE, [eventId, agentId, attempts, now, availableAt, maxAttempts, reason, db.channel, db.origin], "cap_release");
            if (rows[0]?.state === "leased") {
                db.wake([agentId]);
                return { status: "released", availableAt };
            }
            if (rows[0])
                return { status: "failed" };
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
            if (eventIds.length === 0)
                return;
            await db.query("UPDATE events SET poll_id = $2, poll_attempts = attempts WHERE agent_id = $1 AND id = ANY($3::text[])", [agentId, pollId, eventIds]);
        },
    };
}
//# sourceMappingURL=deliveries.js.map