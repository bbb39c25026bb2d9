/**
 * How the SQLite store runs its ops and transactions. The plain runner: one at a time under the store's
 * lock, each op atomic by itself (better-sqlite3 is synchronous), each transaction BEGIN IMMEDIATE … COMMIT
 * with the lock held across its awaits (ops called meanwhile wait instead of landing inside it). Group
 * commit (group-commit.ts) is the accelerated runner.
 *
 * Must never: let an op run inside another caller's open transaction, or announce a rolled-back write.
 */
import type Database from "better-sqlite3";
import { type StoreOps, StoreUnavailableError } from "../contract.js";
import type { SqliteChanges } from "./changes.js";

export type AnyFn = (...args: unknown[]) => unknown;
export type Body<T> = (tx: StoreOps) => Promise<T>;

/**
 * SQLite result codes of an outage rather than a fault: the file is locked past busy_timeout, cannot be
 * read, written or opened, or the disk is full. (Extended codes such as SQLITE_IOERR_WRITE share the prefix.)
 */
const OUTAGE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

/** `err` as the contract reports it: an outage becomes StoreUnavailableError, anything else unchanged. */
export function storeError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && OUTAGE.test(code) ? new StoreUnavailableError(err) : err;
}

/** Calls a synchronous op, reporting its error as the contract does. */
export const guarded =
  (fn: AnyFn) =>
  (...args: unknown[]): unknown => {
    try {
      return fn(...args);
    } catch (err) {
      throw storeError(err);
    }
  };

export class TxLock {
  private tail: Promise<void> = Promise.resolve();
  /** Holders plus waiters; 0 means an op may run at once. */
  users = 0;

  async acquire(): Promise<() => void> {
    this.users++;
    let release!: () => void;
    const next = new Promise<void>((r) => {
      release = r;
    });
    const prev = this.tail;
    this.tail = prev.then(() => next);
    await prev;
    return () => {
      this.users--;
      release();
    };
  }
}

/** The SQL of a transaction and its savepoint, prepared once (db.exec parses on every call). */
export function transactionBodies(db: Database.Database, changes: SqliteChanges) {
  const sql = {
    begin: db.prepare("BEGIN IMMEDIATE"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
    savepoint: db.prepare("SAVEPOINT store_tx"),
    release: db.prepare("RELEASE store_tx"),
    rollbackTo: db.prepare("ROLLBACK TO store_tx"),
  };
  const bodies = {
    begin(): void {
      sql.begin.run();
      changes.hold();
    },
    commit(): void {
      sql.commit.run();
      changes.deliver();
    },
    rollback(): void {
      if (db.inTransaction) sql.rollback.run();
      changes.discard();
    },
    /** A transaction by itself (the caller holds the lock): BEGIN IMMEDIATE, the body, COMMIT. */
    async alone<T>(fn: Body<T>, tx: StoreOps): Promise<T> {
      try {
        bodies.begin();
        const result = await fn(tx);
        bodies.commit();
        return result;
      } catch (err) {
        bodies.rollback();
        throw storeError(err);
      }
    },
    /** A transaction inside an open one (a group batch): its own savepoint, undone alone when it throws. */
    async inBatch<T>(fn: Body<T>, tx: StoreOps): Promise<T> {
      sql.savepoint.run();
      try {
        const result = await fn(tx);
        sql.release.run();
        return result;
      } catch (err) {
        if (db.inTransaction) {
          sql.rollbackTo.run();
          sql.release.run();
          changes.discard();
        }
        throw storeError(err);
      }
    },
  };
  return bodies;
}

export type TransactionBodies = ReturnType<typeof transactionBodies>;

/** How ops and transactions reach the database; group commit replaces the plain one. */
export interface SqliteRunner {
  /** The store's async form of the synchronous op `name`. */
  op(name: string, fn: AnyFn): AnyFn;
  transaction<T>(fn: Body<T>, tx: StoreOps): Promise<T>;
  /** Writes anything queued (the lock is held: the store is closing). */
  flush(): Promise<void>;
}

export function plainRunner(lock: TxLock, bodies: TransactionBodies, changes: SqliteChanges): SqliteRunner {
  return {
    op(_name, fn) {
      const run = guarded(fn);
      return async (...args) => {
        const mark = changes.mark();
        if (lock.users === 0) return changes.settled(mark, run(...args));
        const release = await lock.acquire();
        let result: unknown;
        try {
          result = run(...args);
        } finally {
          release();
        }
        return changes.settled(mark, result);
      };
    },
    async transaction(fn, tx) {
      const mark = changes.mark();
      const release = await lock.acquire();
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await bodies.alone(fn, tx);
      } finally {
        release();
      }
      return changes.settled(mark, result);
    },
    flush: async () => undefined,
  };
}
