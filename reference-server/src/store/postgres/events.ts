/**
 * Events, leases, attempts and dead letters on PostgreSQL (semantics: ../README.md).
 *
 * The claim is one statement (style.md, "Queues in SQL"): retire this agent's exhausted leases, then lock
 * up to `limit` of the agent's oldest pending rows in index order (`events_pending`: agent_id, seq WHERE
 * state = 'pending'), from its claim floor on (claim-floors.ts), and up to `limit` of its ended leases
 * with attempts left (`events_leased`), both with FOR UPDATE SKIP LOCKED, and lease the oldest `limit` of
 * them, counting the attempt. A row another claim has locked is skipped, and a row another claim leased
 * after our snapshot fails the re-check PostgreSQL applies to the locked row version, so two claims — in
 * one process or on two replicas — never return the same event.
 * Enqueue and requeue NOTIFY in the same statement (delivered on commit) and wake local listeners after.
 *
 * Must never: read the clock (every time is `now` from the service), or wait on a row lock inside a claim.
 */
import type { EventOpName, StoreOps } from "../contract.js";
import { EVENT_COLUMNS, EVENT_ROWS } from "../schema.js";
import type { Db } from "./db.js";
import { json } from "./db.js";
import {
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
  WILL_BE_READY,
} from "./lease-rules.js";
import { toDeliveredEvent, toEvent } from "./rows.js";

// The ack is in acks.ts (one statement with the batch ack, shared by concurrent requests).
type EventOps = Omit<Pick<StoreOps, EventOpName>, "ackEvent">;

// The payloads go to event_payloads under the seq each event row got (migrations/004), with the pod and
// the event's id that the pod's listing reads there (migrations/008), in the same statement.
const ENQUEUE = `
  WITH n AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::json[], $6::bigint[])
      WITH ORDINALITY AS n(id, agent_id, pod_id, type, payload, created_at, ord)),
  ins AS (
    INSERT INTO events (id, agent_id, pod_id, type, created_at, state, attempts)
    SELECT id, agent_id, pod_id, type, created_at, 'pending', 0 FROM n ORDER BY ord
    RETURNING seq, id, agent_id),
  payloads AS (
    INSERT INTO event_payloads (seq, payload, pod_id, event_id)
    SELECT ins.seq, n.payload, n.pod_id, ins.id FROM ins JOIN n ON n.id = ins.id)
  SELECT a.agent_id, pg_notify($7, $8 || a.agent_id) FROM (SELECT DISTINCT agent_id FROM ins) a`;

// $1 agent, $2 now, $3 lease ms, $4 max attempts; the limit is written into the text, one prepared
// statement per limit (at most 100; the kernel asks for at most its maxLimit, ≤ 50). With the limit a
// parameter, the generic plan assumed a tenth of the agent's open rows and joined them to a sequential
// scan of all events (16 ms for a 50-event claim on a 50,000-event table), so PostgreSQL planned every claim anew instead (0.6–0.8 ms of
// its CPU per claim, a third of its time in the batch drain); with a literal the generic plan is the custom
// one and is reused. The retire CTE reads events_leased (this agent's ended leases only, so its cost does
// not grow with the backlog) and skips rows another statement holds (that statement is retiring, claiming
// or acking them); `ended` excludes exhausted rows explicitly because all CTEs share one snapshot.
// $5 is the agent's claim floor (claim-floors.ts), as an InitPlan so that the generic plan costs what the
// custom one does (with a bare $5 it cost 8 % more and PostgreSQL went back to planning every claim):
// `pending` reads events_pending from there, and `floor` is the lowest pending seq at or above it in this
// statement's snapshot (before its own updates: the rows it claims are still pending), the next claim's
// floor. Ended leases are read without a floor (events_leased, by expiry). When an agent has both pending
// rows and ended leases, up to `limit` of each are locked and the oldest `limit` leased; the rest stay
// ready and are only skipped by claims running at the same moment. With one index for both states
// (events_open, before migration 007), a claim inserted an entry into it for every row it leased.
export const claimSql = (limit: number) => `
  WITH retired AS (
    UPDATE events SET ${RETIRE}
     WHERE id IN (SELECT id FROM events WHERE agent_id = $1 AND ${EXHAUSTED("$2", "$4")} FOR UPDATE SKIP LOCKED)
    RETURNING 1),
  pending AS (
    SELECT id, seq, state AS prev_state FROM events
     WHERE agent_id = $1 AND ${PENDING} AND seq >= (SELECT $5::bigint)
     ORDER BY seq
     LIMIT ${limit}
     FOR UPDATE SKIP LOCKED),
  ended AS (
    SELECT id, seq, state AS prev_state FROM events
     WHERE agent_id = $1 AND ${READY_AGAIN("$2", "$4")}
     ORDER BY seq
     LIMIT ${limit}
     FOR UPDATE SKIP LOCKED),
  ready AS (
    SELECT id, prev_state FROM (SELECT * FROM pending UNION ALL SELECT * FROM ended) both_states
     ORDER BY seq
     LIMIT ${limit}),
  claimed AS (
    UPDATE events e SET ${LEASE("$2 + $3")}
      FROM ready r WHERE e.id = r.id
    RETURNING e.*, r.prev_state)
  SELECT (SELECT count(*) FROM retired) AS n_retired,
         (SELECT seq FROM events
           WHERE agent_id = $1 AND ${PENDING} AND seq >= (SELECT $5::bigint)
           ORDER BY seq LIMIT 1) AS floor,
         c.*, p.payload::text AS payload_json
    FROM (SELECT 1) one LEFT JOIN claimed c ON true LEFT JOIN event_payloads p ON p.seq = c.seq
   ORDER BY c.seq`;

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

const RETIRE_EXHAUSTED = `
  UPDATE events SET ${RETIRE}
   WHERE id IN (SELECT id FROM events
                 WHERE ($3::text IS NULL OR agent_id = $3) AND ${EXHAUSTED("$1", "$2")}
                 FOR UPDATE SKIP LOCKED)
  RETURNING 1`;

export function eventOps(db: Db): EventOps {
  const getEvent = async (id: string) => {
    const rows = await db.query(
      `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS} WHERE e.id = $1`,
      [id],
      "cap_get_event",
    );
    return rows[0] ? toEvent(rows[0]) : null;
  };
  /** Whether the event exists and is this agent's (a renew that changed nothing asks). */
  const ownEvent = async (agentId: string, id: string) =>
    (await db.query("SELECT 1 FROM events WHERE id = $1 AND agent_id = $2", [id, agentId])).length > 0;

  return {
    async enqueueEvents(events) {
      if (events.length === 0) return;
      const rows = await db.query<{ agent_id: string }>(
        ENQUEUE,
        [
          events.map((e) => e.id),
          events.map((e) => e.agentId),
          events.map((e) => e.podId),
          events.map((e) => e.type),
          events.map((e) => json(e.payload)),
          events.map((e) => e.createdAt),
          db.channel,
          db.origin,
        ],
        "cap_enqueue",
      );
      db.wake(rows.map((r) => r.agent_id));
    },

    async claimEvents({ agentId, limit, leaseMs, maxAttempts, now }) {
      // The limit becomes statement text and a statement name: only a small integer may.
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new RangeError(`claim limit ${limit}`);
      const start = db.floors.start(agentId, now);
      const rows = await db.query(
        claimSql(limit),
        [agentId, now, leaseMs, maxAttempts, start.from],
        `cap_claim_${limit}`,
      );
      const floor = rows[0]?.floor;
      if (floor !== null && floor !== undefined) db.floors.learn(agentId, start, Number(floor));
      const retired = Number(rows[0]?.n_retired ?? 0);
      const claimed = rows.filter((r) => r.id !== null);
      const reclaimed = claimed.filter((r) => r.prev_state === "leased").length;
      return {
        events: claimed.map(toDeliveredEvent),
        expiredLeases: retired + reclaimed,
        newlyFailed: retired,
      };
    },

    getEvent,

    async renewLease({ agentId, eventId, attempts, leaseMs, now }) {
      const rows = await db.query<{ lease_expires_at: number }>(
        `UPDATE events SET lease_expires_at = $4 + $5
          WHERE id = $1 AND agent_id = $2 AND ${FENCE("$3", "$4")}
          RETURNING lease_expires_at`,
        [eventId, agentId, attempts, now, leaseMs],
      );
      if (rows[0]) return { status: "renewed", leaseExpiresAt: rows[0].lease_expires_at };
      return (await ownEvent(agentId, eventId)) ? { status: "lease_lost" } : { status: "not_found" };
    },

    async failExhausted({ now, maxAttempts, agentId }) {
      return (await db.query(RETIRE_EXHAUSTED, [now, maxAttempts, agentId ?? null])).length;
    },

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

    async requeueEvent({ eventId }) {
      const rows = await db.query(
        `WITH r AS (
           UPDATE events SET ${REQUEUE} WHERE id = $1 AND ${FAILED} RETURNING *)
         SELECT r.*, p.payload, pg_notify($2, $3 || r.agent_id) FROM r JOIN event_payloads p ON p.seq = r.seq`,
        [eventId, db.channel, db.origin],
      );
      const row = rows[0];
      if (row) {
        const event = toEvent(row);
        db.wake([event.agentId]);
        return { status: "requeued", event };
      }
      const event = await getEvent(eventId);
      return event ? { status: "not_failed", event } : { status: "not_found" };
    },

    async failOpenEvents({ agentId, podId, now, reason }) {
      const rows = await db.query(
        `UPDATE events SET ${FAIL("$3", "$4")}
          WHERE agent_id = $1 AND pod_id = $2 AND (${PENDING} OR ${LEASED}) RETURNING 1`,
        [agentId, podId, now, reason],
      );
      return rows.length;
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
      const rows = await db.query<{ state: "pending" | "leased" | "acked" | "failed"; n: number }>(
        "SELECT state, count(*) AS n FROM events GROUP BY state",
      );
      const stats = { pending: 0, leased: 0, acked: 0, failed: 0 };
      for (const r of rows) stats[r.state] = r.n;
      return stats;
    },
  };
}
