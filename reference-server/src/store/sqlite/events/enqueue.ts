/**
 * SQLite enqueue and requeue: how events enter the ready set — new ones as `pending` with no attempt
 * used, and a failed one brought back by an operator with a fresh budget. Both wake the agent's
 * long-polls after commit.
 *
 * Must never: requeue an event that is not failed, or wake an agent before its write is committed
 * (`notify` holds the wake-up until the surrounding transaction commits).
 */
import type { RequeueResult } from "../../contract.js";
import { EVENT_COLUMNS, EVENT_ROWS } from "../../schema.js";
import { insertOrConflict } from "../agents.js";
import { FAILED, REQUEUE } from "../lease-rules.js";
import { type Row, toEvent } from "../rows.js";
import type { SqliteContext, SyncOps } from "../types.js";

type EnqueueOps = Pick<SyncOps, "enqueueEvents" | "requeueEvent">;

export function enqueueOps({ db, notify }: SqliteContext): EnqueueOps {
  const q = {
    insert: db.prepare(
      `INSERT INTO events (id, agent_id, pod_id, type, state, attempts, created_at, supersedes, traceparent, tracestate)
       VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
    ),
    insertPayload: db.prepare(
      "INSERT INTO event_payloads (seq, payload, pod_id, event_id, message_id) VALUES (?, ?, ?, ?, ?)",
    ),
    get: db.prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS} WHERE e.id = ?`),
    requeue: db.prepare(`UPDATE events SET ${REQUEUE} WHERE id = ? AND ${FAILED}`),
  };

  const insertMany = db.transaction((rows: Parameters<SyncOps["enqueueEvents"]>[0]) => {
    for (const e of rows)
      insertOrConflict(() => {
        const { lastInsertRowid } = q.insert.run(
          e.id,
          e.agentId,
          e.podId,
          e.type,
          e.createdAt,
          e.supersedes && e.supersedes.length > 0 ? JSON.stringify(e.supersedes) : null,
          e.traceparent ?? null,
          e.tracestate ?? null,
        );
        q.insertPayload.run(
          lastInsertRowid,
          JSON.stringify(e.payload ?? {}),
          e.podId,
          e.id,
          e.messageId ?? null,
        );
      }, `event ${e.id}`);
  });

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
    requeueEvent: (input) => requeueTx(input),
  };
}
