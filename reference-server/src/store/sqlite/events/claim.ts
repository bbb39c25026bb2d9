/**
 * SQLite claim: retire this agent's exhausted leases, then lease its oldest ready events, counting the
 * attempt. A claim for a poll named by `pollId` first looks for the deliveries claimed under it that are
 * still held and answers those alone; otherwise it claims as any claim does and records the pollId in the
 * same UPDATE. Either way one synchronous op, so it joins the group commit like every claim.
 * New work is read from the partial index events_pending (agent_id, seq) WHERE state = 'pending', so the
 * oldest-first order comes from the index, not a sort; ended leases from events_leased (agent_id,
 * lease_expires_at) WHERE state = 'leased'. A poll's cost depends on what the agent holds, not on how
 * many events wait behind it (migrations/006).
 *
 * Must never: hand out an event another claim holds, or count an attempt anywhere but here.
 */
import type { ClaimInput, ClaimResult } from "../../contract.js";
import type { DeliveredEvent } from "../../records.js";
import { arrayMapper, columnNames } from "../../rows.js";
import { DELIVERED_EVENT_COLUMNS, EVENTS } from "../../schema.js";
import { FENCE, LEASE, PENDING, POLL_TAG, READY_AGAIN, UNRELEASED } from "../lease-rules.js";
import { type Row, toDeliveredEvent } from "../rows.js";
import type { SqliteContext, SyncOps } from "../types.js";
import { RETIRE_AGENT_SQL } from "./retire.js";

type ClaimOps = Pick<SyncOps, "claimEvents">;

// The claim reads its rows as arrays of the columns it does not know already: building a 19-property
// object per row (RETURNING *) cost more than the update.
// A claimed event is leased, so its cancel columns are null: given, not read.
const CLAIM_GIVEN = [
  "agent_id",
  "state",
  "lease_expires_at",
  "payload",
  "cancel_reason",
  "cancelled_at",
  "cancelled_by_kind",
  "cancelled_by_id",
  "cancelled_attempts",
] as const;
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
  ...cancelColumns: null[]
) => DeliveredEvent;

// A claim's ready events are the oldest pending ones (the index alone answers) and the ended leases with
// attempts left, merged in seq order. Two statements and a merge in JS only when there are ended leases:
// as one UNION ALL, SQLite sorted both arms in temporary b-trees.
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
 * then read back with their payloads: cheaper per claimed event than `seq IN (json_each(…)) RETURNING …`
 * (still used when ended leases are mixed in), whose RETURNING rows go through a temporary table.
 * Positional parameters:
 * lease end, (pollId for `updateForPoll`,) agent, last seq; then the seqs as a JSON array. Exported for
 * the plan test.
 */
export const CLAIM_PENDING_SQL = {
  update: `UPDATE events INDEXED BY events_pending
             SET ${LEASE("?")}
           WHERE agent_id = ? AND ${PENDING} AND seq <= ?`,
  updateForPoll: `UPDATE events INDEXED BY events_pending
                    SET ${LEASE("?")}, ${POLL_TAG("?")}
                  WHERE agent_id = ? AND ${PENDING} AND seq <= ?`,
  read: `SELECT ${CLAIM_SELECTED.map((c) => `e.${c}`).join(", ")}, p.payload
           FROM events e JOIN event_payloads p ON p.seq = e.seq
          WHERE e.seq IN (SELECT value FROM json_each(?))`,
};

/**
 * The deliveries still held under a pollId, among the agent's running leases (events_leased, migrations/009):
 * a driver holds few when it polls again. Exported for the plan test.
 */
export const POLL_DELIVERIES_SQL = `SELECT ${DELIVERED_EVENT_COLUMNS.sqlite}
  FROM events e INDEXED BY events_leased JOIN event_payloads p ON p.seq = e.seq
 WHERE agent_id = @agentId AND poll_id = @pollId AND ${FENCE("poll_attempts", "@now")}
 ORDER BY e.seq`;

/**
 * Before the mixed claim: an `expired` event_history row (migrations/012) for each ended lease it takes
 * that was not released, written here rather than by a trigger on `attempts`, which every claim would run.
 */
export const RECORD_ENDED_SQL = `INSERT INTO event_history (event_seq, kind, at, attempt, lease_was)
  SELECT seq, 'expired', lease_expires_at, attempts, lease_expires_at FROM events
   WHERE seq IN (SELECT value FROM json_each(?)) AND ${UNRELEASED}
   ORDER BY seq`;

/** The mixed claim (pending rows and ended leases), with the pollId recorded or without. */
const claimSeqsSql = (set: string) => `UPDATE events SET ${set}
  WHERE seq IN (SELECT value FROM json_each(@seqs))
  RETURNING ${CLAIMED}, (SELECT p.payload FROM event_payloads p WHERE p.seq = events.seq)`;

export function claimOps({ db }: SqliteContext): ClaimOps {
  const q = {
    retireAgent: db.prepare(RETIRE_AGENT_SQL),
    // A claim reads the ready seqs first and updates only when there are some: the UPDATE … WHERE seq IN
    // (subquery) RETURNING costs several times the select even when it matches nothing, and an idle
    // long-poll's claim almost always finds nothing.
    readyPending: db.prepare(READY_SQL.pending).pluck(),
    readyEnded: db.prepare(READY_SQL.endedLeases).pluck(),
    // The payload comes back with the row (a subquery in RETURNING): one statement fewer per claim.
    claim: db.prepare(claimSeqsSql(LEASE("@leaseUntil"))).raw(),
    claimForPoll: db.prepare(claimSeqsSql(`${LEASE("@leaseUntil")}, ${POLL_TAG("@pollId")}`)).raw(),
    claimPending: db.prepare(CLAIM_PENDING_SQL.update),
    claimPendingForPoll: db.prepare(CLAIM_PENDING_SQL.updateForPoll),
    claimedRows: db.prepare(CLAIM_PENDING_SQL.read).raw(),
    pollDeliveries: db.prepare(POLL_DELIVERIES_SQL),
    recordEnded: db.prepare(RECORD_ENDED_SQL),
  };

  const claimTx = db.transaction((input: ClaimInput): ClaimResult => {
    const { agentId, limit, leaseMs, maxAttempts, now, pollId } = input;
    // A poll repeated while the deliveries of its first attempt are held answers those and claims nothing.
    // One writer at a time (this process, BEGIN IMMEDIATE) serialises polls with the same pollId.
    if (pollId !== undefined) {
      const held = q.pollDeliveries.all({ agentId, pollId, now }) as Row[];
      if (held.length > 0) return { events: held.map(toDeliveredEvent), expiredLeases: 0, newlyFailed: 0 };
    }
    const newlyFailed = q.retireAgent.run({ agentId, now, maxAttempts }).changes;
    const pending = q.readyPending.all({ agentId, limit }) as number[];
    const ended = q.readyEnded.all({ agentId, now, maxAttempts }) as number[];
    const seqs = ended.length === 0 ? pending : [...pending, ...ended].sort((x, y) => x - y).slice(0, limit);
    if (seqs.length === 0) return { events: [], expiredLeases: newlyFailed, newlyFailed };
    const leaseUntil = now + leaseMs;
    let rows: unknown[][];
    if (ended.length === 0) {
      const last = pending[pending.length - 1];
      const changed = (
        pollId === undefined
          ? q.claimPending.run(leaseUntil, agentId, last)
          : q.claimPendingForPoll.run(leaseUntil, pollId, agentId, last)
      ).changes;
      if (changed !== pending.length) throw new Error(`claim leased ${changed} of ${pending.length} events`);
      rows = q.claimedRows.all(JSON.stringify(pending)) as unknown[][];
    } else {
      const args = { seqs: JSON.stringify(seqs), leaseUntil };
      q.recordEnded.run(args.seqs);
      rows = (
        pollId === undefined ? q.claim.all(args) : q.claimForPoll.all({ ...args, pollId })
      ) as unknown[][];
    }
    rows.sort((a, b) => (a[SEQ] as number) - (b[SEQ] as number));
    let reclaimed = 0;
    const events = rows.map((r): DeliveredEvent => {
      if ((r[ATTEMPTS] as number) > 1) reclaimed++;
      const payload = r[PAYLOAD];
      if (typeof payload !== "string") throw new Error(`event ${String(r[SEQ])} has no payload row`);
      return toClaimed(r, agentId, "leased", leaseUntil, payload, null, null, null, null, null);
    });
    return { events, expiredLeases: reclaimed + newlyFailed, newlyFailed };
  });

  return {
    claimEvents: (input) => claimTx(input),
  };
}
