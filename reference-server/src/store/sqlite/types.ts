/**
 * Internal types of the SQLite store: the synchronous twin of StoreOps that the op modules implement.
 */
import type Database from "better-sqlite3";
import type { StoreOps } from "../contract.js";

export type SyncOps = {
  [K in keyof StoreOps]: (...args: Parameters<StoreOps[K]>) => Awaited<ReturnType<StoreOps[K]>>;
};

export interface SqliteContext {
  db: Database.Database;
  /** Record that this agent may have ready events; delivered after the surrounding transaction commits. */
  notify(agentId: string): void;
  /** Record that a token's authentication may have changed; delivered after the transaction commits. */
  authChanged(): void;
  /**
   * Agents with nothing to claim, now or later, without a write that notifies: no pending and no leased
   * event at their last claim. notify() and every rollback drop marks; another process's commit drops all.
   */
  idle: Set<string>;
  /** True when the agent is marked idle and no other process has written since (freshen first). */
  isIdle(agentId: string): boolean;
  /**
   * Drops every mark of `idle` (and every undoable cache) when another connection has committed since;
   * it looks at most every 5 ms (index.ts, LOOK_MS), so a foreign commit is seen at most that late.
   */
  freshen(): void;
  /**
   * Registers a cache of rows read from this connection: `drop` runs when a transaction rolls back (what it
   * read inside may be undone) and when another process has committed to the file.
   */
  undoable(drop: () => void): void;
}
