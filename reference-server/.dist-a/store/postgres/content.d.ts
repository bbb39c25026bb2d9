/**
 * Messages, memory, idempotency records, decisions and join codes on PostgreSQL.
 *
 * The two read-for-update methods take a transaction-scoped advisory lock on (schema, agent[, key]) and only
 * then read, in a second statement: under READ COMMITTED each statement takes a new snapshot, so the read
 * sees whatever the previous lock holder committed. A lock (rather than SELECT … FOR UPDATE) also
 * serialises writers of a row that does not exist yet, without inserting a placeholder row.
 *
 * Must never: merge memory (the service computes the envelope; putMemory replaces the row).
 */
import type { ContentOpName, StoreOps } from "../contract.js";
import type { Db } from "./db.js";
type ContentOps = Pick<StoreOps, ContentOpName>;
export declare function contentOps(db: Db): ContentOps;
export {};
