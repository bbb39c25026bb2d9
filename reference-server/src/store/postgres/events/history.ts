/**
 * PostgreSQL reads for the trace view: the message that caused an event and the events a message caused
 * (both through event_payloads.message_id), and the events' recorded transitions (event_history, written by
 * the triggers of migrations/013, never by the queue's statements).
 *
 * Must never: write, or read the clock.
 */
import type { StoreOps } from "../../contract.js";
import { toTransition } from "../../rows.js";
import { EVENT_COLUMNS } from "../../schema.js";
import type { Db } from "../db.js";
import { toEvent } from "../rows.js";

type HistoryOps = Pick<StoreOps, "causeOf" | "messageEvents" | "eventHistory">;

export function historyOps(db: Db): HistoryOps {
  return {
    async causeOf(eventId) {
      const rows = await db.query<{ message_id: string | null }>(
        "SELECT p.message_id FROM events e JOIN event_payloads p ON p.seq = e.seq WHERE e.id = $1",
        [eventId],
      );
      return rows[0]?.message_id ?? null;
    },

    async messageEvents(messageId) {
      const rows = await db.query(
        `SELECT ${EVENT_COLUMNS} FROM event_payloads p JOIN events e ON e.seq = p.seq
          WHERE p.message_id = $1 ORDER BY e.seq`,
        [messageId],
      );
      return rows.map(toEvent);
    },

    async eventHistory(eventIds) {
      if (eventIds.length === 0) return [];
      const rows = await db.query(
        `SELECT e.id AS event_id, h.kind, h.at, h.attempt, h.lease_was, h.lease_expires_at, h.reason, h.by_kind, h.by_id
           FROM events e JOIN event_history h ON h.event_seq = e.seq
          WHERE e.id = ANY($1::text[]) ORDER BY h.seq`,
        [eventIds],
      );
      return rows.map(toTransition);
    },
  };
}
