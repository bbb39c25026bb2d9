/**
 * SQLite reads for the trace view: the message that caused an event and the events a message caused (both
 * through event_payloads.message_id), and the events' recorded transitions (event_history, written by the
 * triggers of migrations/012 and, for a reclaim's `expired` row and a renewal, by claim.ts and settle.ts).
 *
 * Must never: write, or read the clock.
 */
import { toTransition } from "../../rows.js";
import { EVENT_COLUMNS } from "../../schema.js";
import { type Row, toEvent } from "../rows.js";
import type { SqliteContext, SyncOps } from "../types.js";

type HistoryOps = Pick<SyncOps, "causeOf" | "messageEvents" | "eventHistory">;

export function historyOps({ db }: SqliteContext): HistoryOps {
  const q = {
    cause: db
      .prepare("SELECT p.message_id FROM events e JOIN event_payloads p ON p.seq = e.seq WHERE e.id = ?")
      .pluck(),
    events: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM event_payloads p JOIN events e ON e.seq = p.seq
        WHERE p.message_id = ? ORDER BY e.seq`,
    ),
    history: db.prepare(
      `SELECT e.id AS event_id, h.kind, h.at, h.attempt, h.lease_was, h.lease_expires_at, h.reason, h.by_kind, h.by_id
         FROM events e JOIN event_history h ON h.event_seq = e.seq
        WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY h.seq`,
    ),
  };
  return {
    causeOf: (eventId) => (q.cause.get(eventId) as string | null | undefined) ?? null,
    messageEvents: (messageId) => (q.events.all(messageId) as Row[]).map(toEvent),
    eventHistory: (eventIds) =>
      eventIds.length === 0 ? [] : (q.history.all(JSON.stringify(eventIds)) as Row[]).map(toTransition),
  };
}
