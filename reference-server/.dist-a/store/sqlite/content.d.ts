/**
 * SQLite ops for pod content and agent state: messages, memory, idempotency records, decisions, join codes.
 */
import type { ContentOpName } from "../contract.js";
import type { SqliteContext, SyncOps } from "./types.js";
type ContentOps = Pick<SyncOps, ContentOpName>;
export declare function contentOps({ db }: SqliteContext): ContentOps;
export {};
