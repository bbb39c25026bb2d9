/**
 * SQLite ops for the event queue: enqueue, claim with leases, ack, renew, retire, requeue, views.
 * New work is read from the partial index events_pending (agent_id, seq) WHERE state = 'pending', so the
 * oldest-first order comes from the index, not a sort; ended leases from events_leased (agent_id,
 * lease_expires_at) WHERE state = 'leased', which also serves retire and the next expiry. A poll's cost
 * depends on what the agent holds, not on how many events wait behind it, and an ack (leased → acked)
 * touches one of the two indexes, not both (migrations/006). Attempts are counted at claim.
 */
import type { ClaimResult, EventOpName, RenewResult, RequeueResult } from "../contract.js";
import type { DeliveredEvent, QueueStats } from "../records.js";
import { arrayMapper, columnNames } from "../rows.js";
import { EVENT_COLUMNS, EVENT_ROWS, EVENTS } from "../schema.js";
import { insertOrConflict } from "./agents.js";
import {
  ACK,
  EXHAUSTED,
  FAIL,
  FAILED,
  FENCE,
  LEASE,
  LEASED,
  NEXT_EXPIRY,
  PENDING,
  READY_AGAIN,
  REQUEUE,
  RETIRE,
  UNACKED,
  WILL_BE_READY,
} from "./lease-rules.js";
import { json, type Row, toEvent } from "./rows.js";
import { statementCache } from "./statement-cache.js";
import type { SqliteContext, SyncOps } from "./types.js";

type EventOps = Pick<SyncOps, EventOpName>;

// The claim reads its rows as arrays of the columns it does not know already: building a 19-property
// object per row (RETURNING *) cost about 3 µs per event of a 50-event claim, more than the update.
const CLAIM_GIVEN = ["agent_id", "state", "lease_expires_at", "payload"] as const;
const CLAIM_SELECTED = ["seq", ...columnNames(EVENTS, CLAIM_GIVEN)];
const CLAIMED = CLAIM_SELECTED.join(", ");
const SEQ = 0;
const PAYLOAD = CLAIM_SELECTED.length; // after the selected columns: the payload's subquery
const ATTEMPTS = CLAIM_SELECTED.indexOf("attempts");
// The payload stays the stored JSON text (DeliveredEvent): the poll answer writes it as it is.
const toClaimed = arrayMapper(EVENTS, "sqlite", CLAIM_SELECTED, CLAIM_GIVEN, {
  storedJson: "payload",
}) as unknown as (
  row: readonly unknown[],
  agentId: string,
  state: "leased",
  leaseExpiresAt: number,
  payloadJson: string,
) => DeliveredEvent;

// A claim's ready events are the oldest pending ones (the index alone answers) and the ended leases with
// attempts left, merged in seq order. Two statements and a merge in JS only when there are ended leases:
// as one UNION ALL, SQLite sorted both arms in temporary b-trees, 24–35 against 15 µs per 50-event read.
// Which rows are ready is PENDING and READY_AGAIN (lease-rules.ts); this is only how they are read.
// Exported for the plan test.
export const READY_SQL = {
  pending: `SELECT seq FROM events INDEXED BY events_pending
             WHERE agent_id = @agentId AND ${PENDING} ORDER BY seq LIMIT @limit`,
  endedLeases: `SELECT seq FROM events INDEXED BY events_leased
                 WHERE agent_id = @agentId AND ${READY_AGAIN("@now", "@maxAttempts")}`,
};

/**
 * A claim of pending events only (the usual one): the agent's pending rows up to the last seq the ready
 * read returned — exactly those rows, inside the claim's transaction — updated through events_pending,
 * then read back with their payloads. Against `seq IN (json_each(…)) RETURNING …` (still used when ended
 * leases are mixed in), whose RETURNING rows go through a temporary table, a tenth less per claimed event
 * (measured on the store alone, variants interleaved on identical databases). Positional parameters:
 * lease end, agent, last seq; then the seqs as a JSON array. Exported for the plan test.
 */
export const CLAIM_PENDING_SQL = {
  update: `UPDATE events INDEXED BY events_pending
             SET ${LEASE("?")}
           WHERE agent_id = ? AND ${PENDING} AND seq <= ?`,
  read: `SELECT ${CLAIM_SELECTED.map((c) => `e.${c}`).join(", ")}, p.payload
           FROM events e JOIN event_payloads p ON p.seq = e.seq
          WHERE e.seq IN (SELECT value FROM json_each(?))`,
};

/**
 * The ack of one event (single and batch ack): parameters now, result, id, agent. Positional, because
 * binding four named parameters from an object cost 0.6–0.8 µs more per ack (a sixth of the statement).
 */
export const ACK_SQL = `UPDATE events SET ${ACK("?", "?")} WHERE id = ? AND agent_id = ? AND ${UNACKED}`;

export function eventOps({ db, notify, idle, isIdle }: SqliteContext): EventOps {
  const prepared = statementCache(db);
  const q = {
    insert: db.prepare(
      `INSERT INTO events (id, agent_id, pod_id, type, state, attempts, created_at)
       VALUES (@id, @agentId, @podId, @type, 'pending', 0, @createdAt)`,
    ),
    insertPayload: db.prepare(
      "INSERT INTO event_payloads (seq, payload, pod_id, event_id) VALUES (?, ?, ?, ?)",
    ),
    // Retiring reads events_leased: only this agent's ended leases, never the pending backlog.
    retireAgent: db.prepare(
      `UPDATE events INDEXED BY events_leased SET ${RETIRE}
       WHERE agent_id = @agentId AND ${EXHAUSTED("@now", "@maxAttempts")}`,
    ),
    retireAll: db.prepare(`UPDATE events SET ${RETIRE} WHERE ${EXHAUSTED("@now", "@maxAttempts")}`),
    // A claim reads the ready seqs first and updates only when there are some: the UPDATE … WHERE seq IN
    // (subquery) RETURNING costs ~90 µs even when it matches nothing (the select alone ~10 µs), and an idle
    // long-poll's claim almost always finds nothing (issue 10, idle profile).
    readyPending: db.prepare(READY_SQL.pending).pluck(),
    readyEnded: db.prepare(READY_SQL.endedLeases).pluck(),
    // The payload comes back with the row (a subquery in RETURNING): one statement fewer per claim, which
    // cost ~1 µs per event of a 50-event claim and more than that per event of the few-event claims of a
    // conversation.
    claim: db
      .prepare(
        `UPDATE events SET ${LEASE("@leaseUntil")}
       WHERE seq IN (SELECT value FROM json_each(@seqs))
       RETURNING ${CLAIMED}, (SELECT p.payload FROM event_payloads p WHERE p.seq = events.seq)`,
      )
      .raw(),
    claimPending: db.prepare(CLAIM_PENDING_SQL.update),
    claimedRows: db.prepare(CLAIM_PENDING_SQL.read).raw(),
    anyLeased: db.prepare(`SELECT 1 FROM events INDEXED BY events_leased WHERE agent_id = ? AND ${LEASED}`),
    get: db.prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS} WHERE e.id = ?`),
    ack: db.prepare(ACK_SQL),
    owner: db.prepare("SELECT agent_id FROM events WHERE id = ?").pluck(),
    renew: db.prepare(
      `UPDATE events SET lease_expires_at = @leaseUntil
       WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")}`,
    ),
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
    requeue: db.prepare(`UPDATE events SET ${REQUEUE} WHERE id = ? AND ${FAILED}`),
    // One statement per state, so that each reads its own partial index (an IN list matches neither).
    failPending: db.prepare(
      `UPDATE events INDEXED BY events_pending SET ${FAIL("@now", "@reason")}
       WHERE agent_id = @agentId AND ${PENDING} AND pod_id = @podId`,
    ),
    failLeased: db.prepare(
      `UPDATE events INDEXED BY events_leased SET ${FAIL("@now", "@reason")}
       WHERE agent_id = @agentId AND ${LEASED} AND pod_id = @podId`,
    ),
    podEvents: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM event_payloads p JOIN events e ON e.seq = p.seq
        WHERE p.pod_id = ? ORDER BY p.seq DESC LIMIT ?`,
    ),
    stats: db.prepare("SELECT state, COUNT(*) AS n FROM events GROUP BY state"),
  };

  const insertMany = db.transaction((rows: Parameters<SyncOps["enqueueEvents"]>[0]) => {
    for (const e of rows)
      insertOrConflict(() => {
        const { lastInsertRowid } = q.insert.run(e);
        q.insertPayload.run(lastInsertRowid, JSON.stringify(e.payload ?? {}), e.podId, e.id);
      }, `event ${e.id}`);
  });

  const claimTx = db.transaction(({ agentId, limit, leaseMs, maxAttempts, now }): ClaimResult => {
    const newlyFailed = q.retireAgent.run({ agentId, now, maxAttempts }).changes;
    const pending = q.readyPending.all({ agentId, limit }) as number[];
    const ended = q.readyEnded.all({ agentId, now, maxAttempts }) as number[];
    const seqs = ended.length === 0 ? pending : [...pending, ...ended].sort((x, y) => x - y).slice(0, limit);
    if (seqs.length === 0) {
      if (q.anyLeased.get(agentId) === undefined) idle.add(agentId);
      return { events: [], expiredLeases: newlyFailed, newlyFailed };
    }
    const leaseUntil = now + leaseMs;
    let rows: unknown[][];
    if (ended.length === 0) {
      const changed = q.claimPending.run(leaseUntil, agentId, pending[pending.length - 1]).changes;
      if (changed !== pending.length) throw new Error(`claim leased ${changed} of ${pending.length} events`);
      rows = q.claimedRows.all(JSON.stringify(pending)) as unknown[][];
    } else rows = q.claim.all({ seqs: JSON.stringify(seqs), leaseUntil }) as unknown[][];
    rows.sort((a, b) => (a[SEQ] as number) - (b[SEQ] as number));
    let reclaimed = 0;
    const events = rows.map((r): DeliveredEvent => {
      if ((r[ATTEMPTS] as number) > 1) reclaimed++;
      const payload = r[PAYLOAD];
      if (typeof payload !== "string") throw new Error(`event ${String(r[SEQ])} has no payload row`);
      return toClaimed(r, agentId, "leased", leaseUntil, payload);
    });
    return { events, expiredLeases: reclaimed + newlyFailed, newlyFailed };
  });

  // One statement on the hot path; the read only runs for repeated acks and unknown or foreign ids.
  const ackTx = ({ agentId, eventId, now, result }: Parameters<SyncOps["ackEvent"]>[0]): boolean => {
    if (q.ack.run(now, json(result), eventId, agentId).changes === 1) return true;
    return q.owner.get(eventId) === agentId;
  };

  const renewTx = db.transaction(({ agentId, eventId, attempts, leaseMs, now }): RenewResult => {
    const leaseUntil = now + leaseMs;
    if (q.renew.run({ id: eventId, agentId, attempts, now, leaseUntil }).changes === 1)
      return { status: "renewed", leaseExpiresAt: leaseUntil };
    const row = q.get.get(eventId) as Row | undefined;
    return !row || row.agent_id !== agentId ? { status: "not_found" } : { status: "lease_lost" };
  });

  const failOpenTx = db.transaction(
    (input: Parameters<SyncOps["failOpenEvents"]>[0]): number =>
      q.failPending.run(input).changes + q.failLeased.run(input).changes,
  );

  const requeueTx = db.transaction(({ eventId }): RequeueResult => {
    const row = q.get.get(eventId) as Row | undefined;
    if (!row) return { status: "not_found" };
    if (row.state !== "failed") return { status: "not_failed", event: toEvent(row) };
    q.requeue.run(eventId);
    notify(row.agent_id);
    return { status: "requeued", event: toEvent(q.get.get(eventId) as Row) };
  });

  return {
    enqueueEvents: (events) => {
      if (events.length === 0) return;
      insertMany(events);
      for (const id of new Set(events.map((e) => e.agentId))) notify(id);
    },
    // An idle agent's poll (a driver waiting in long-polls with nothing queued) reads nothing: measured on
    // the idle bench, its claim and lease look-up were most of the kernel's CPU.
    claimEvents: (input) =>
      isIdle(input.agentId) ? { events: [], expiredLeases: 0, newlyFailed: 0 } : claimTx(input),
    getEvent: (id) => {
      const r = q.get.get(id) as Row | undefined;
      return r ? toEvent(r) : null;
    },
    ackEvent: (input) => ackTx(input),
    renewLease: (input) => renewTx(input),
    failExhausted: ({ now, maxAttempts, agentId }) =>
      agentId === undefined
        ? q.retireAll.run({ now, maxAttempts }).changes
        : q.retireAgent.run({ agentId, now, maxAttempts }).changes,
    nextLeaseExpiry: (input) =>
      isIdle(input.agentId) ? null : (q.nextExpiry.get(input) as { next: number | null }).next,
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
    requeueEvent: (input) => requeueTx(input),
    failOpenEvents: (input) => failOpenTx(input),
    listPodEvents: ({ podId, limit }) => (q.podEvents.all(podId, limit) as Row[]).map(toEvent),
    queueStats: () => {
      const stats: QueueStats = { pending: 0, leased: 0, acked: 0, failed: 0 };
      for (const r of q.stats.all() as { state: keyof QueueStats; n: number }[]) stats[r.state] = r.n;
      return stats;
    },
  };
}
