/**
 * The SQLite store (better-sqlite3): a file in WAL mode by default, `:memory:` for tests.
 *
 * Opening it applies the pragmas and pending migrations, builds the plain store — one module per noun
 * (people, agents, events, content), every op synchronous and atomic, run one at a time under the store's
 * lock (transactions.ts) — and then applies the accelerators (accelerators.ts) unless `accelerate` is
 * false (assemble.ts). One process per database file serves: the several-replica deployment is the
 * PostgreSQL store's.
 */
import type { Store } from "../contract.js";
import { SQLITE_ACCELERATORS } from "./accelerators.js";
import { assembleSqliteStore } from "./assemble.js";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:". */
  path: string;
  /** How long a statement waits for a file locked by another process before it fails (503). Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL from a thread of its own once it holds this many frames (checkpointer.ts); false:
   * only SQLite's autocheckpoint, inside commits. Default 1000.
   */
  checkpointThreadFrames?: number | false;
  /** False: the plain store, without the accelerators of accelerators.ts. Default true. */
  accelerate?: boolean;
}

export function openSqliteStore(options: SqliteStoreOptions): Store {
  return assembleSqliteStore(options, options.accelerate === false ? [] : SQLITE_ACCELERATORS);
}
