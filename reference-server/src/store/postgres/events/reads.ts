/**
 * PostgreSQL reads of the queue: one event, when an agent's events become ready (the long-poll's next
 * lease end and the backstop's ready instants), the dead letters, a pod's events and the counts per state.
 *
 * Must never: write (retiring an exhausted lease is retire.ts's), or read the clock.
 */
import type { QueueStats, StoreOps } from "../../contract.js";
import { EVENT_COLUMNS, EVENT_ROWS } from "../../schema.js";
import type { Db } from "../db.js";
import { FAILED, NEXT_EXPIRY, PENDING, WILL_BE_READY } from "../lease-rules.js";
import { toEvent } from "../rows.js";

type ReadOps = Pick<
  StoreOps,
  "getEvent" | "nextLeaseExpiry" | "readyInstants" | "listDeadLetters" | "listPodEvents" | "queueStats"
>;

// Per agent, the first pending row in events_pending order, else the earliest lease end: ORDER BY
// seq LIMIT 1 keeps PostgreSQL on the index (as EXISTS it chose a sequential scan that, for an agent
// with nothing pending, read the whole table), and COALESCE only reads the leases when nothing is
// pending. Agents with neither come back with a null `at`, which readyInstants leaves out.
export const READY_INSTANTS_SQL = `
  SELECT a.agent_id,
         COALESCE((SELECT 0::bigint FROM events e
                    WHERE e.agent_id = a.agent_id AND ${PENDING} ORDER BY e.seq LIMIT 1),
                  (SELECT min(lease_expires_at) FROM events e
                    WHERE e.agent_id = a.agent_id AND ${WILL_BE_READY("$2")})) AS at
    FROM (SELECT DISTINCT unnest($1::text[]) AS agent_id) a`;

/** getEvent on `db` (requeue answers with the event too). */
export const eventReader =
  (db: Db): StoreOps["getEvent"] =>
  async (id) => {
    const rows = await db.query(
      `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS} WHERE e.id = $1`,
      [id],
      "cap_get_event",
    );
    return rows[0] ? toEvent(rows[0]) : null;
  };

export function readOps(db: Db): ReadOps {
  return {
    getEvent: eventReader(db),

    async nextLeaseExpiry({ agentId, now, maxAttempts }) {
      const rows = await db.query<{ next: number | null }>(
        `SELECT min(lease_expires_at) AS next FROM events
          WHERE agent_id = $1 AND ${NEXT_EXPIRY("$2", "$3")}`,
        [agentId, now, maxAttempts],
        "cap_next_lease_expiry",
      );
      return rows[0]?.next ?? null;
    },

    async readyInstants({ agentIds, maxAttempts }) {
      if (agentIds.length === 0) return [];
      const rows = await db.query<{ agent_id: string; at: number | null }>(
        READY_INSTANTS_SQL,
        [agentIds, maxAttempts],
        "cap_ready_instants",
      );
      const ready = rows.filter((r) => r.at !== null);
      // Read without a floor: an agent found with a pending event may hold it below its floor (a wake-up
      // that never arrived), so its next claim reads from the start.
      for (const r of ready) if (Number(r.at) === 0) db.floors.drop(r.agent_id);
      return ready.map((r) => ({ agentId: r.agent_id, at: Number(r.at) }));
    },

    async listDeadLetters({ agentId, podId, limit }) {
      const rows = await db.query(
        `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS}
          WHERE e.${FAILED} AND ($1::text IS NULL OR e.agent_id = $1) AND ($2::text IS NULL OR e.pod_id = $2)
          ORDER BY e.failed_at DESC, e.seq DESC LIMIT $3`,
        [agentId ?? null, podId ?? null, limit],
      );
      return rows.map(toEvent);
    },

    async listPodEvents({ podId, limit }) {
      const rows = await db.query(
        `SELECT ${EVENT_COLUMNS} FROM event_payloads p JOIN events e ON e.id = p.event_id
          WHERE p.pod_id = $1 ORDER BY p.seq DESC LIMIT $2`,
        [podId, limit],
      );
      return rows.map(toEvent);
    },

    async queueStats() {
      const rows = await db.query<{ state: keyof QueueStats; n: number }>(
        "SELECT state, count(*) AS n FROM events GROUP BY state",
      );
      const stats: QueueStats = { pending: 0, leased: 0, acked: 0, failed: 0, cancelled: 0 };
      for (const r of rows) stats[r.state] = r.n;
      return stats;
    },
  };
}
