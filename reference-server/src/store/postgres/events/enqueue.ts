/**
 * PostgreSQL enqueue and requeue: how events enter the ready set — new ones as `pending` with no attempt
 * used, and a failed one brought back by an operator with a fresh budget. Both NOTIFY in the same
 * statement (delivered to every replica on commit) and wake this store's listeners after.
 *
 * Must never: requeue an event that is not failed, or read the clock.
 */
import type { StoreOps } from "../../contract.js";
import type { Db } from "../db.js";
import { json } from "../db.js";
import { FAILED, REQUEUE } from "../lease-rules.js";
import { toEvent } from "../rows.js";
import { eventReader } from "./reads.js";

type EnqueueOps = Pick<StoreOps, "enqueueEvents" | "requeueEvent">;

// The payloads go to event_payloads under the seq each event row got (migrations/004), with the pod and
// the event's id that the pod's listing reads there (migrations/008) and the message that caused it, which
// the trace view reads there (migrations/013), in the same statement.
const ENQUEUE = `
  WITH n AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::json[], $6::bigint[], $9::json[],
                         $10::text[], $11::text[], $12::text[])
      WITH ORDINALITY AS n(id, agent_id, pod_id, type, payload, created_at, supersedes, traceparent, tracestate,
                           message_id, ord)),
  ins AS (
    INSERT INTO events (id, agent_id, pod_id, type, created_at, state, attempts, supersedes, traceparent, tracestate)
    SELECT id, agent_id, pod_id, type, created_at, 'pending', 0, supersedes, traceparent, tracestate FROM n ORDER BY ord
    RETURNING seq, id, agent_id),
  payloads AS (
    INSERT INTO event_payloads (seq, payload, pod_id, event_id, message_id)
    SELECT ins.seq, n.payload, n.pod_id, ins.id, n.message_id FROM ins JOIN n ON n.id = ins.id)
  SELECT a.agent_id, pg_notify($7, $8 || a.agent_id) FROM (SELECT DISTINCT agent_id FROM ins) a`;

export function enqueueOps(db: Db): EnqueueOps {
  const getEvent = eventReader(db);
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
          events.map((e) => (e.supersedes && e.supersedes.length > 0 ? json(e.supersedes) : null)),
          events.map((e) => e.traceparent ?? null),
          events.map((e) => e.tracestate ?? null),
          events.map((e) => e.messageId ?? null),
        ],
        "cap_enqueue",
      );
      db.wake(rows.map((r) => r.agent_id));
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
  };
}
