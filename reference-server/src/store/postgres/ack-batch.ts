/**
 * Group commit for single acks on PostgreSQL: the acks that arrive during one turn of the event loop go
 * to the database as one statement — one round trip and one commit (one WAL flush) instead of one each,
 * which is what bounded the drain. Each ack still settles exactly as alone: per (event, agent) the first
 * ack of the batch carries its result (first ack wins, as in arrival order), an ack that changed nothing
 * (a repeat, an unknown or another agent's id) reads the event afterwards as ackEvent would, and if the
 * statement fails every ack of the batch is retried alone, so one failure never becomes another's.
 *
 * Must never: answer an ack before its write has committed (the statement is its own transaction).
 */
import type { EventRecord, StoreOps } from "../contract.js";
import { type Db, jsonOrNull } from "./db.js";
import { toEvent } from "./rows.js";

type AckInput = Parameters<StoreOps["ackEvent"]>[0];

// $1 ids, $2 agents, $3 results (json), $4 each ack's now.
const ACK_BATCH = `
  WITH input AS (
    SELECT id, agent_id, result, now, ord
      FROM unnest($1::text[], $2::text[], $3::json[], $4::bigint[])
        WITH ORDINALITY AS t(id, agent_id, result, now, ord)),
  firsts AS (
    SELECT DISTINCT ON (id, agent_id) id, agent_id, result, now, ord FROM input ORDER BY id, agent_id, ord)
  UPDATE events e SET state = 'acked', acked_at = f.now, result = f.result
    FROM firsts f WHERE e.id = f.id AND e.agent_id = f.agent_id AND e.state <> 'acked'
  RETURNING e.*, f.ord`;

interface Queued {
  input: AckInput;
  resolve: (r: EventRecord | null) => void;
  reject: (err: unknown) => void;
}

export function ackBatcher(db: Db, ackAlone: StoreOps["ackEvent"]) {
  let queue: Queued[] = [];
  let scheduled = false;

  const alone = (q: Queued) => ackAlone(q.input).then(q.resolve, q.reject);

  async function flush() {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 1) return alone(batch[0] as Queued);
    let rows: Record<string, unknown>[];
    try {
      rows = await db.query(
        ACK_BATCH,
        [
          batch.map((q) => q.input.eventId),
          batch.map((q) => q.input.agentId),
          batch.map((q) => jsonOrNull(q.input.result)),
          batch.map((q) => q.input.now),
        ],
        "cap_ack_batch",
      );
    } catch {
      await Promise.all(batch.map(alone));
      return;
    }
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    await Promise.all(
      batch.map(async (q, i) => {
        const row = byOrd.get(i + 1);
        if (row) return q.resolve(toEvent(row));
        // Changed nothing: already acked (maybe by an earlier item of this batch), unknown or foreign.
        try {
          const own = await db.query("SELECT * FROM events WHERE id = $1 AND agent_id = $2", [
            q.input.eventId,
            q.input.agentId,
          ]);
          q.resolve(own[0] ? toEvent(own[0]) : null);
        } catch (err) {
          q.reject(err);
        }
      }),
    );
  }

  return {
    ackEvent(input: AckInput): Promise<EventRecord | null> {
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
