/**
 * PostgreSQL settle: what the holder of a delivery does with it — ack it (one event or several: one write,
 * `ACK_ROWS`, over a list of calls), renew its lease, or release it (ready again at `availableAt`, or failed
 * on the last attempt). Renew and release are fenced: only the delivery that holds a running lease, once.
 * A released delivery keeps state `leased` with its lease moved to `availableAt` and `release_attempts =
 * attempts` (migrations/002), so the claim, the retire step and the lease-expiry wake-ups of every replica
 * treat it like a lease that ends then; the release NOTIFYs so waiting polls everywhere re-read it.
 * Outside a transaction the acks of concurrent requests share one write (../ack-batcher.ts).
 *
 * Must never: read the clock, settle part of a call, or replace the result of an event acked before.
 */
import type { LeaseLost, StoreOps } from "../../contract.js";
import type { Db } from "../db.js";
import { encodeText, json } from "../db.js";
import { ACK, BUDGET_USED, CANCELLED, FENCE, LEASED, MARK_RELEASED, UNACKED } from "../lease-rules.js";

type SettleOps = Pick<StoreOps, "ackEvent" | "ackEvents" | "renewLease" | "releaseEvent">;

export interface AckCall {
  agentId: string;
  items: { eventId: string; result: unknown }[];
  now: number;
}

// $1: the items as a JSON array of {a: agent, i: id, r: result, n: now}, each (agent, id) once (writeAcks
// keeps the first). One JSON parameter rather than arrays: PostgreSQL sizes an array parameter's unnest
// by its length, so every execution of a prepared statement over arrays was planned anew;
// json_to_recordset is sized the same whatever the input, so the prepared statement settles on its
// generic plan. json_to_recordset decodes every string of its input, and
// refuses a lone surrogate escape (`\ud800`), which JSON.parse lets through and a `json` value holds: so
// each result travels as the text of its JSON (cast back with ::json, stored verbatim as before) and ids
// are made well-formed, as the UTF-8 encoding of a text parameter makes them (U+FFFD).
// The ids also go in as `id = ANY(ARRAY(…))`, an index condition on events_pkey whatever the table's size.
// Joined to json_to_recordset alone (which PostgreSQL guesses at 100 rows), the generic plan of a small
// table hashed a sequential scan of every open event, and a connection keeps that plan as the table
// grows until the next ANALYZE.
export const ACK_ROWS = `
  UPDATE events e SET ${ACK("t.n", "t.r::json")}
    FROM json_to_recordset($1::json) AS t(a text, i text, r text, n bigint)
   WHERE e.id = ANY (ARRAY(SELECT x.i FROM json_to_recordset($1::json) AS x(i text)))
     AND e.id = t.i AND e.agent_id = t.a AND e.${UNACKED}
  RETURNING e.agent_id, e.id`;

// Only for items the update did not change (acked before, unknown, or another agent's). Which agent an
// event belongs to never changes, so a later read answers as the update's own snapshot would have.
const OWNERS = "SELECT agent_id, id FROM events WHERE id = ANY($1::text[])";

// Keys of the caller's strings as given: an id made well-formed cannot name an event (the kernel makes
// every id, in ASCII), so such an item is not found either way.
const keyOf = (agentId: string, id: string) => `${agentId}\n${id}`;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const idText = (s: string) => encodeText(s).replace(LONE_SURROGATE, "\uFFFD");

/** Writes the calls in one statement; per call, per item in order: whether the event is the agent's. */
export async function writeAcks(db: Db, calls: AckCall[]): Promise<boolean[][]> {
  // The first item of an (agent, id) carries its result: first ack wins, as for single acks, also
  // within one call and across calls.
  const first = new Map<string, { agentId: string; id: string; result: unknown; now: number }>();
  for (const c of calls) {
    for (const item of c.items) {
      const key = keyOf(c.agentId, item.eventId);
      if (!first.has(key))
        first.set(key, { agentId: c.agentId, id: item.eventId, result: item.result, now: c.now });
    }
  }
  if (first.size === 0) return calls.map(() => []);
  const rows = [...first.values()];
  // Text inside the JSON gets the escaping every text parameter gets (db.ts); results stay verbatim.
  const input = rows.map((r) => ({
    a: idText(r.agentId),
    i: idText(r.id),
    r: r.result === null || r.result === undefined ? null : JSON.stringify(r.result),
    n: r.now,
  }));
  const acked = await db.query<{ agent_id: string; id: string }>(ACK_ROWS, [json(input)], "cap_ack_rows");
  const own = new Set(acked.map((r) => keyOf(r.agent_id, r.id)));
  if (own.size < first.size) {
    const rest = rows.filter((r) => !own.has(keyOf(r.agentId, r.id))).map((r) => r.id);
    const owners = await db.query<{ agent_id: string; id: string }>(OWNERS, [rest], "cap_ack_owners");
    for (const r of owners) own.add(keyOf(r.agent_id, r.id));
  }
  return calls.map((c) => c.items.map((item) => own.has(keyOf(c.agentId, item.eventId))));
}

/** One call in its own statement. */
export async function writeAck(db: Db, call: AckCall): Promise<boolean[]> {
  return (await writeAcks(db, [call]))[0] ?? [];
}

// $1 id, $2 agent, $3 attempts, $4 now, $5 availableAt, $6 maxAttempts, $7 reason, $8 channel, $9 origin.
// One statement: the fence of renew, then either a lease moved to availableAt or, with the budget used,
// failed at once. The notify only for a release that leaves the event deliverable (still leased).
const USED = BUDGET_USED("$6");
const RELEASE = `
  WITH r AS (
    UPDATE events SET
      state = CASE WHEN ${USED} THEN 'failed' ELSE 'leased' END,
      failed_at = CASE WHEN ${USED} THEN $4 ELSE failed_at END,
      fail_reason = CASE WHEN ${USED} THEN 'released' ELSE fail_reason END,
      lease_expires_at = CASE WHEN ${USED} THEN $4 ELSE $5 END,
      available_at = CASE WHEN ${USED} THEN available_at ELSE $5 END,
      ${MARK_RELEASED("$7")}
     WHERE id = $1 AND agent_id = $2 AND ${FENCE("$3", "$4")}
    RETURNING agent_id, state)
  SELECT r.state, CASE WHEN ${LEASED} THEN pg_notify($8, $9 || r.agent_id) END AS notified FROM r`;

/** How a call of acks is written: one statement per call, or the batcher's shared one. */
export type WriteAcks = (call: AckCall) => Promise<boolean[]>;

export function settleOps(db: Db, write: WriteAcks = (call) => writeAck(db, call)): SettleOps {
  /**
   * Why a renew or release changed nothing: not_found for an unknown or foreign id, else lease_lost, with
   * the cancel reason when the event was cancelled.
   */
  const notHeld = async (agentId: string, id: string): Promise<LeaseLost | { status: "not_found" }> => {
    const rows = await db.query<{ reason: string | null }>(
      `SELECT CASE WHEN ${CANCELLED} THEN cancel_reason END AS reason FROM events WHERE id = $1 AND agent_id = $2`,
      [id, agentId],
      "cap_not_held",
    );
    const r = rows[0];
    if (!r) return { status: "not_found" };
    return r.reason === null
      ? { status: "lease_lost" }
      : { status: "lease_lost", cancelled: { reason: r.reason } };
  };

  return {
    async ackEvent({ agentId, eventId, now, result }) {
      return (await write({ agentId, items: [{ eventId, result }], now }))[0] === true;
    },

    async ackEvents({ agentId, items, now }) {
      return items.length === 0 ? [] : write({ agentId, items, now });
    },

    async renewLease({ agentId, eventId, attempts, leaseMs, now }) {
      const rows = await db.query<{ lease_expires_at: number }>(
        `UPDATE events SET lease_expires_at = $4 + $5
          WHERE id = $1 AND agent_id = $2 AND ${FENCE("$3", "$4")}
          RETURNING lease_expires_at`,
        [eventId, agentId, attempts, now, leaseMs],
      );
      if (rows[0]) return { status: "renewed", leaseExpiresAt: rows[0].lease_expires_at };
      return notHeld(agentId, eventId);
    },

    async releaseEvent({ agentId, eventId, attempts, now, availableAt, maxAttempts, reason }) {
      const rows = await db.query<{ state: string }>(
        RELEASE,
        [eventId, agentId, attempts, now, availableAt, maxAttempts, reason, db.channel, db.origin],
        "cap_release",
      );
      if (rows[0]?.state === "leased") {
        db.wake([agentId]);
        return { status: "released", availableAt };
      }
      if (rows[0]) return { status: "failed" };
      return notHeld(agentId, eventId);
    },
  };
}
