/**
 * SQLite reads of the queue: one event, when an agent's events become ready (the long-poll's next lease
 * end and the backstop's ready instants), the dead letters, a pod's events and the counts per state.
 *
 * Must never: write (retiring an exhausted lease is retire.ts's, run by the claim and the views' callers).
 */
import type { QueueStats } from "../../records.js";
import { EVENT_COLUMNS, EVENT_ROWS } from "../../schema.js";
import { FAILED, NEXT_EXPIRY, PENDING, WILL_BE_READY } from "../lease-rules.js";
import { type Row, toEvent } from "../rows.js";
import { statementCache } from "../statement-cache.js";
import type { SqliteContext, SyncOps } from "../types.js";

type ReadOps = Pick<
  SyncOps,
  "getEvent" | "nextLeaseExpiry" | "readyInstants" | "listDeadLetters" | "listPodEvents" | "queueStats"
>;

export function readOps({ db }: SqliteContext): ReadOps {
  const prepared = statementCache(db);
  const q = {
    get: db.prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS} WHERE e.id = ?`),
    nextExpiry: db.prepare(
      `SELECT MIN(lease_expires_at) AS next FROM events INDEXED BY events_leased
       WHERE agent_id = @agentId AND ${NEXT_EXPIRY("@now", "@maxAttempts")}`,
    ),
    readyAt: db.prepare(
      `SELECT CASE WHEN EXISTS (SELECT 1 FROM events INDEXED BY events_pending
                                 WHERE agent_id = @agentId AND ${PENDING}) THEN 0
              ELSE (SELECT MIN(lease_expires_at) FROM events INDEXED BY events_leased
                     WHERE agent_id = @agentId AND ${WILL_BE_READY("@maxAttempts")})
              END AS at`,
    ),
    podEvents: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM event_payloads p JOIN events e ON e.seq = p.seq
        WHERE p.pod_id = ? ORDER BY p.seq DESC LIMIT ?`,
    ),
    stats: db.prepare("SELECT state, COUNT(*) AS n FROM events GROUP BY state"),
  };

  return {
    getEvent: (id) => {
      const r = q.get.get(id) as Row | undefined;
      return r ? toEvent(r) : null;
    },
    nextLeaseExpiry: (input) => (q.nextExpiry.get(input) as { next: number | null }).next,
    readyInstants: ({ agentIds, maxAttempts }) => {
      // One indexed MIN per agent inside one read: cheaper in SQLite than an IN list with GROUP BY.
      const out: { agentId: string; at: number }[] = [];
      for (const agentId of agentIds) {
        const at = (q.readyAt.get({ agentId, maxAttempts }) as { at: number | null }).at;
        if (at !== null) out.push({ agentId, at });
      }
      return out;
    },
    listDeadLetters: ({ agentId, podId, limit }) => {
      const where = [`e.${FAILED}`];
      const args: unknown[] = [];
      if (agentId !== undefined) {
        where.push("e.agent_id = ?");
        args.push(agentId);
      }
      if (podId !== undefined) {
        where.push("e.pod_id = ?");
        args.push(podId);
      }
      const sql = `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS} WHERE ${where.join(" AND ")} ORDER BY e.failed_at DESC, e.seq DESC LIMIT ?`;
      return (prepared(sql).all(...args, limit) as Row[]).map(toEvent);
    },
    listPodEvents: ({ podId, limit }) => (q.podEvents.all(podId, limit) as Row[]).map(toEvent),
    queueStats: () => {
      const stats: QueueStats = { pending: 0, leased: 0, acked: 0, failed: 0, cancelled: 0 };
      for (const r of q.stats.all() as { state: keyof QueueStats; n: number }[]) stats[r.state] = r.n;
      return stats;
    },
  };
}
