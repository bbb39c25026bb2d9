/**
 * The SQLite store (better-sqlite3): a file in WAL mode by default, `:memory:` for tests.
 *
 * better-sqlite3 is synchronous, so every single op is atomic by construction. `transaction(fn)` spans
 * awaits, so it holds an in-process lock from BEGIN IMMEDIATE to COMMIT; ops called on the store while a
 * transaction runs wait for the lock (they would otherwise land inside it). Ready-event notifications
 * raised inside a transaction are delivered only after it commits. One process per database file: the
 * several-replica deployment is the PostgreSQL store's job.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type Store, type StoreOps, StoreUnavailableError } from "../contract.js";
import { agentOps } from "./agent-ops.js";
import { contentOps } from "./content-ops.js";
import { deliveryOps } from "./delivery-ops.js";
import { eventOps } from "./event-ops.js";
import { migrate } from "./migrate.js";
import { peopleOps } from "./people-ops.js";
import type { SqliteContext, SyncOps } from "./types.js";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:". */
  path: string;
  /** How long a statement waits for a file locked by another process before it fails (503). Default 5000. */
  busyTimeoutMs?: number;
}

type AnyFn = (...args: unknown[]) => unknown;

/**
 * SQLite result codes of an outage rather than a fault: the file is locked past busy_timeout, cannot be
 * read, written or opened, or the disk is full. (Extended codes such as SQLITE_IOERR_WRITE share the prefix.)
 */
const OUTAGE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

/** `err` as the contract reports it: an outage becomes StoreUnavailableError, anything else unchanged. */
function storeError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && OUTAGE.test(code) ? new StoreUnavailableError(err) : err;
}

class TxLock {
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

export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  if (options.path !== ":memory:") db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  migrate(db, Date.now());

  const listeners = new Set<(agentId: string) => void>();
  let pending: Set<string> | null = null;
  const emit = (ids: Iterable<string>) => {
    const list = [...ids];
    if (list.length === 0) return;
    queueMicrotask(() => {
      for (const id of list)
        for (const l of listeners) {
          try {
            l(id);
          } catch {
            // a listener's fault must not break the store
          }
        }
    });
  };
  const ctx: SqliteContext = {
    db,
    notify: (agentId) => {
      if (pending) pending.add(agentId);
      else emit([agentId]);
    },
  };
  const sync: SyncOps = {
    ...peopleOps(ctx),
    ...agentOps(ctx),
    ...eventOps(ctx),
    ...deliveryOps(ctx),
    ...contentOps(ctx),
  };
  const lock = new TxLock();

  const txOps = {} as Record<string, AnyFn>;
  const storeOps = {} as Record<string, AnyFn>;
  for (const [name, fn] of Object.entries(sync) as [string, AnyFn][]) {
    const run = (args: unknown[]) => {
      try {
        return fn(...args);
      } catch (err) {
        throw storeError(err);
      }
    };
    txOps[name] = (...args) => {
      try {
        return Promise.resolve(run(args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    storeOps[name] = async (...args) => {
      if (lock.users === 0) return run(args);
      const release = await lock.acquire();
      try {
        return run(args);
      } finally {
        release();
      }
    };
  }

  let closed = false;
  const store: Store = {
    ...(storeOps as unknown as StoreOps),
    kind: "sqlite",
    async transaction(fn) {
      const release = await lock.acquire();
      pending = new Set();
      try {
        db.exec("BEGIN IMMEDIATE");
        const result = await fn(txOps as unknown as StoreOps);
        db.exec("COMMIT");
        emit(pending);
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw storeError(err);
      } finally {
        pending = null;
        release();
      }
    },
    onEventsReady(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // Every write that readies an event runs in this process and notifies directly: nothing can be missed.
    onWakeupsMissed: () => () => undefined,
    async ping() {
      if (closed) throw new Error("store closed");
      try {
        // A read of the schema, not just `SELECT 1`: it fails while another process holds the file locked.
        db.prepare("SELECT count(*) FROM sqlite_master").get();
      } catch (err) {
        throw storeError(err);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      const release = await lock.acquire();
      try {
        db.close();
      } finally {
        release();
      }
    },
  };
  return store;
}
