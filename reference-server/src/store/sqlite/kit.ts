/**
 * The parts of an open SQLite store that its accelerators (accelerators.ts) may replace with faster ones:
 * the synchronous ops, the answers given without the lock, and the runner. The plain store is this kit
 * with nothing replaced.
 */
import type Database from "better-sqlite3";
import type { ClaimInput, ClaimResult } from "../contract.js";
import type { SqliteChanges } from "./changes.js";
import type { SqliteRunner, TransactionBodies, TxLock } from "./transactions.js";
import type { SyncOps } from "./types.js";

export interface SqliteKit {
  readonly db: Database.Database;
  readonly lock: TxLock;
  readonly changes: SqliteChanges;
  readonly bodies: TransactionBodies;
  /** The operations, each synchronous and atomic; used by the store and inside its transactions. */
  sync: SyncOps;
  /** Answers known without touching the database; undefined means "run the op". */
  quick: { claimEvents?: (input: ClaimInput) => ClaimResult | undefined };
  runner: SqliteRunner;
}

/** An accelerator: a named replacement of some of the kit's parts (see accelerators.ts). */
export interface SqliteAccelerator {
  readonly name: string;
  apply(kit: SqliteKit): void;
}
