/**
 * Acks on PostgreSQL: the single ack and the batch ack are one write (`ACK_ROWS`) over a list of calls, and
 * outside a transaction the acks of concurrent requests share that write (`ackBatcher`).
 *
 * Why share: the one-ack drain spent most of PostgreSQL's time per event on the statement and its commit
 * (executor start-up, the WAL flush and its `fdatasync`), not on the row. One statement runs at a time;
 * calls that arrive meanwhile wait for it and go together in the next, so under load one commit carries
 * the acks of every driver, and an ack that finds nothing running is written in the check phase of its
 * event-loop turn (the requests read in that turn join it). Measured on the drain, a second statement in
 * flight halved the batches and cost more than the wait it saved. A call's items stay in one statement,
 * so a batch ack still settles all of its items or none.
 *
 * Why the next statement goes out before the answers: the drain is bound by the statement's round trip,
 * and answering first put every answer's HTTP write (and the pool's tick for a client) between one commit
 * and the next statement. The batcher keeps one pool client while its queue is not empty and sends the
 * waiting calls on it as soon as a statement returns; measured on the one-ack drain, 1.144 × the events/s
 * (`bench/ab-drain.mjs --store postgres --ack each`, 8 alternating slices of 4,000).
 *
 * Must never: answer a call before the statement carrying it has committed, let one call's failure decide
 * another's answer (a shared statement that fails for a reason other than an outage is written again
 * call by call; an outage fails each call, as its own statement would have), or settle part of a call.
 */
import type { StoreOps } from "../contract.js";
import type { Db } from "./db.js";
export interface AckCall {
    agentId: string;
    items: {
        eventId: string;
        result: unknown;
    }[];
    now: number;
}
export declare const ACK_ROWS = "\n  UPDATE events e SET state = 'acked', acked_at = t.n, result = t.r::json\n    FROM json_to_recordset($1::json) AS t(a text, i text, r text, n bigint)\n   WHERE e.id = ANY (ARRAY(SELECT x.i FROM json_to_recordset($1::json) AS x(i text)))\n     AND e.id = t.i AND e.agent_id = t.a AND e.state <> 'acked'\n  RETURNING e.agent_id, e.id";
/** Writes the calls in one statement; per call, per item in order: whether the event is the agent's. */
export declare function writeAcks(db: Db, calls: AckCall[]): Promise<boolean[][]>;
/** One call in its own statement. */
export declare function writeAck(db: Db, call: AckCall): Promise<boolean[]>;
type Write = (call: AckCall) => Promise<boolean[]>;
/** ackEvent and ackEvents over one way of writing a call. */
export declare function ackOps(write: Write): Pick<StoreOps, "ackEvent" | "ackEvents">;
/**
 * A connection the batcher keeps while it has calls to write, given back when its queue is empty. A held
 * pool client sends a statement at once, where the pool's own `query` first waits a tick for a client,
 * after the answers of the statement before had been written to their HTTP sockets.
 */
export interface HeldConnection {
    db: Db;
    /** Gives the connection back; with an error (an outage met on it), it is closed instead of reused. */
    release(err?: Error): void;
}
export interface AckBatcherOptions {
    /** Most items in one statement (whole calls only; a larger call goes alone). Default 1000. */
    maxItems?: number;
}
/** Calls written together, one statement at a time; see the module comment. */
export declare function ackBatcher(hold: () => Promise<HeldConnection>, options?: AckBatcherOptions): Write;
export {};
