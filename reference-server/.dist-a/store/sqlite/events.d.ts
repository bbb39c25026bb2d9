/**
 * SQLite ops for the event queue: enqueue, claim with leases, ack, renew, retire, requeue, views.
 * New work is read from the partial index events_pending (agent_id, seq) WHERE state = 'pending', so the
 * oldest-first order comes from the index, not a sort; ended leases from events_leased (agent_id,
 * lease_expires_at) WHERE state = 'leased', which also serves retire and the next expiry. A poll's cost
 * depends on what the agent holds, not on how many events wait behind it, and an ack (leased → acked)
 * touches one of the two indexes, not both (migrations/006). Attempts are counted at claim.
 */
import type { EventOpName } from "../contract.js";
import type { SqliteContext, SyncOps } from "./types.js";
type EventOps = Pick<SyncOps, EventOpName>;
export declare const READY_SQL: {
    pending: string;
    endedLeases: string;
};
/**
 * A claim of pending events only (the usual one): the agent's pending rows up to the last seq the ready
 * read returned — exactly those rows, inside the claim's transaction — updated through events_pending,
 * then read back with their payloads. Against `seq IN (json_each(…)) RETURNING …` (still used when ended
 * leases are mixed in), whose RETURNING rows go through a temporary table, a tenth less per claimed event
 * (measured on the store alone, variants interleaved on identical databases). Positional parameters:
 * lease end, agent, last seq; then the seqs as a JSON array. Exported for the plan test.
 */
export declare const CLAIM_PENDING_SQL: {
    update: string;
    read: string;
};
/**
 * The ack of one event (single and batch ack): parameters now, result, id, agent. Positional, because
 * binding four named parameters from an object cost 0.6–0.8 µs more per ack (a sixth of the statement).
 */
export declare const ACK_SQL = "UPDATE events SET state = 'acked', acked_at = ?, result = ?\n  WHERE id = ? AND agent_id = ? AND state != 'acked'";
export declare function eventOps({ db, notify, idle, isIdle }: SqliteContext): EventOps;
export {};
