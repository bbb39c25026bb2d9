/**
 * Internal types of the SQLite store: the synchronous twin of StoreOps that the op modules implement.
 */
import type Database from "better-sqlite3";
import type { StoreOps } from "../contract.js";

export type SyncOps = {
  [K in keyof StoreOps]: (...args: Parameters<StoreOps[K]>) => Awaited<ReturnType<StoreOps[K]>>;
};

/** What the op modules are built with: the connection and the announcements (changes.ts). */
export interface SqliteContext {
  db: Database.Database;
  /** Record that this agent may have ready events; delivered after the surrounding transaction commits. */
  notify(agentId: string): void;
  /** Record that this agent's event was cancelled; delivered after the surrounding transaction commits. */
  cancelled(agentId: string, eventId: string): void;
  /** Record that a token's authentication may have changed; delivered after the transaction commits. */
  authChanged(): void;
}
