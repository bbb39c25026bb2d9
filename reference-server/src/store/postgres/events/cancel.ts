/**
 * PostgreSQL cancel (feature `cancel`): an open event becomes terminal `cancelled` in one statement,
 * recording the delivery held at that moment; the double-texting cancel of the deliveries agents hold in
 * a pod; the watch's read of one delivery; and which watched events are cancelled (the watch hub's sweep
 * after the LISTEN connection came back). Every cancel NOTIFYs in its own statement (delivered to every
 * replica at commit, cancel-announce.ts) and is announced to this store's listeners after.
 *
 * Must never: cancel a settled event (acked, failed or cancelled), cancel an exhausted lease (it is
 * retired as failed first, as a claim would), or read the clock.
 */
import type { StoreOps } from "../../contract.js";
import { cancelPayloadSql } from "../cancel-announce.js";
import type { Db } from "../db.js";
import {
  CANCEL,
  CANCELLED,
  CANCELLED_DELIVERY,
  EXHAUSTED,
  FENCE,
  HELD,
  OPEN,
  RETIRE,
} from "../lease-rules.js";

type CancelOps = Pick<StoreOps, "cancelEvent" | "cancelHeldEvents" | "cancellationOf" | "cancelledAmong">;

// $1 id, $2 agent (or null), $3 pod (or null), $4 now, $5 max attempts, $6 reason, $7 canceller kind,
// $8 canceller id, $9 channel, $10 origin. `target` locks the row first and reads its latest version
// (under READ COMMITTED a locking read waits for a concurrent writer and sees what it committed), so the
// state answered is the state the cancel found, and at most one of the two updates applies.
const CANCEL_EVENT = `
  WITH target AS (
    SELECT id, agent_id, pod_id, state, ${EXHAUSTED("$4", "$5")} AS exhausted FROM events
     WHERE id = $1 AND ($2::text IS NULL OR agent_id = $2) AND ($3::text IS NULL OR pod_id = $3)
       FOR UPDATE),
  retired AS (
    UPDATE events SET ${RETIRE} WHERE id IN (SELECT id FROM target WHERE exhausted) RETURNING id),
  cancelled AS (
    UPDATE events SET ${CANCEL("$4", "$6", "$7", "$8")}
     WHERE id IN (SELECT id FROM target WHERE NOT exhausted) AND ${OPEN}
    RETURNING id, agent_id)
  SELECT t.agent_id, t.pod_id, t.state, t.exhausted, c.id IS NOT NULL AS changed,
         CASE WHEN c.id IS NOT NULL
              THEN pg_notify($9, $10 || ${cancelPayloadSql("c.agent_id", "c.id")}) END AS notified
    FROM target t LEFT JOIN cancelled c ON true`;

// $1 agents, $2 pod, $3 now, $4 reason, $5 kind, $6 id, $7 channel, $8 origin.
const CANCEL_HELD = `
  WITH c AS (
    UPDATE events SET ${CANCEL("$3", "$4", "$5", "$6")}
     WHERE agent_id = ANY($1::text[]) AND ${HELD("$3")} AND pod_id = $2
    RETURNING agent_id, id)
  SELECT agent_id, id, pg_notify($7, $8 || ${cancelPayloadSql("agent_id", "id")}) FROM c`;

// $1 id, $2 agent, $3 attempts, $4 now.
const WATCH = `
  SELECT CASE WHEN ${CANCELLED_DELIVERY("$3")} THEN 'cancelled'
              WHEN ${FENCE("$3", "$4")} THEN 'held'
              ELSE 'lease_lost' END AS status,
         cancel_reason, cancelled_at, lease_expires_at
    FROM events WHERE id = $1 AND agent_id = $2`;

export function cancelOps(db: Db): CancelOps {
  return {
    async cancelEvent({ eventId, agentId, podId, by, reason, maxAttempts, now }) {
      const rows = await db.query<{
        agent_id: string;
        pod_id: string;
        state: "pending" | "leased" | "acked" | "failed" | "cancelled";
        exhausted: boolean;
        changed: boolean;
      }>(
        CANCEL_EVENT,
        [
          eventId,
          agentId ?? null,
          podId ?? null,
          now,
          maxAttempts,
          reason,
          by.kind,
          by.id,
          db.channel,
          db.origin,
        ],
        "cap_cancel_event",
      );
      const r = rows[0];
      if (!r) return { status: "not_found" };
      const where = { agentId: r.agent_id, podId: r.pod_id };
      if (r.changed) {
        db.cancelled([{ agentId: r.agent_id, eventId }]);
        return { status: "cancelled", changed: true, ...where };
      }
      if (r.exhausted) return { status: "failed", changed: false, ...where };
      // Not open, so settled: the state it settled in.
      return { status: r.state as "cancelled" | "acked" | "failed", changed: false, ...where };
    },

    async cancelHeldEvents({ agentIds, podId, by, reason, now }) {
      if (agentIds.length === 0) return [];
      const rows = await db.query<{ agent_id: string; id: string }>(
        CANCEL_HELD,
        [[...new Set(agentIds)], podId, now, reason, by.kind, by.id, db.channel, db.origin],
        "cap_cancel_held",
      );
      const out = rows.map((r) => ({ agentId: r.agent_id, eventId: r.id }));
      db.cancelled(out);
      return out;
    },

    async cancellationOf({ agentId, eventId, attempts, now }) {
      const rows = await db.query<{
        status: string;
        cancel_reason: string;
        cancelled_at: number;
        lease_expires_at: number;
      }>(WATCH, [eventId, agentId, attempts, now], "cap_cancellation_of");
      const r = rows[0];
      if (!r) return { status: "not_found" };
      if (r.status === "cancelled")
        return { status: "cancelled", reason: r.cancel_reason, cancelledAt: r.cancelled_at };
      if (r.status === "held") return { status: "held", leaseExpiresAt: r.lease_expires_at };
      return { status: "lease_lost" };
    },

    async cancelledAmong(eventIds) {
      if (eventIds.length === 0) return [];
      const rows = await db.query<{ id: string }>(
        `SELECT id FROM events WHERE id = ANY($1::text[]) AND ${CANCELLED}`,
        [eventIds],
        "cap_cancelled_among",
      );
      return rows.map((r) => r.id);
    },
  };
}
