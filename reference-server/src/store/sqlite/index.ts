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
import { type ClaimInput, type Store, type StoreOps, StoreUnavailableError } from "../contract.js";
import { agentOps } from "./agents.js";
import { contentOps } from "./content.js";
import { eventOps } from "./events.js";
import { watchForeignCommits } from "./foreign-commits.js";
import { groupCommit } from "./group-commit.js";
import { migrate } from "./migrate.js";
import { peopleOps } from "./people.js";
import type { SqliteContext, SyncOps } from "./types.js";

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
}

type AnyFn = (...args: unknown[]) => unknown;

/** The writes every driver sends many of: queued and committed together per event-loop turn. */
const GROUPED = ["claimEvents", "ackEvent", "ackEvents", "renewLease", "releaseEvent"] as const;

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
  // A checkpoint fsyncs, and at the default of 1,000 WAL pages one came so often that it cost more than
  // the acks between them. A file's WAL is checkpointed by a thread of its own (checkpointer.ts); this
  // autocheckpoint at 10,000 pages (~40 MB of WAL) is the backstop for when that thread cannot keep up,
  // and the WAL file is cut back to 64 MB after each. A 32 MB page cache (default 2 MB) keeps the
  // queue's hot pages out of pread().
  db.pragma("wal_autocheckpoint = 10000");
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma("cache_size = -32768");
  // Temporary b-trees (the claim's `seq IN (SELECT … json_each)` materialises one) in memory: with the
  // default, SQLite created, opened and unlinked a file in /var/tmp for every claim.
  db.pragma("temp_store = MEMORY");
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
  // Auth listeners run synchronously at commit (not in a microtask like wake-ups): a request that starts
  // after the revoking write has returned must already miss every cache.
  const authListeners = new Set<() => void>();
  let authPending = false;
  const emitAuth = () => {
    for (const l of authListeners) {
      try {
        l();
      } catch {
        // a listener's fault must not break the store
      }
    }
  };
  const idle = new Set<string>();
  const undoables: Array<() => void> = [() => idle.clear()];
  /** Forgets everything read that a rollback or another process's commit may have made untrue. */
  const dropUndoable = () => {
    for (const drop of undoables) drop();
  };
  // Other processes' commits to the file, looked for at most every 5 ms (foreign-commits.ts).
  const foreign = watchForeignCommits({
    db,
    path: options.path,
    checkpointThreadFrames: options.checkpointThreadFrames ?? 1000,
    onForeignCommit: () => {
      dropUndoable();
      emitAuth();
    },
  });
  const freshen = () => foreign.lookIfDue();
  // Auth changes this store committed (counted at their announcement), for the settle wait below.
  let ownAuthChanges = 0;
  /** Resolves `result` once any auth change made meanwhile has been settled (foreign-commits.ts). */
  const settled = async <T>(since: number, result: T): Promise<T> => {
    if (ownAuthChanges !== since) await foreign.settle();
    return result;
  };
  const ctx: SqliteContext = {
    db,
    idle,
    isIdle: (agentId) => {
      if (!idle.has(agentId)) return false;
      freshen();
      return idle.has(agentId);
    },
    freshen,
    undoable: (drop) => {
      undoables.push(drop);
    },
    notify: (agentId) => {
      idle.delete(agentId);
      if (pending) pending.add(agentId);
      else emit([agentId]);
    },
    authChanged: () => {
      ownAuthChanges++;
      if (pending) authPending = true;
      else emitAuth();
    },
  };
  const sync: SyncOps = {
    ...peopleOps(ctx),
    ...agentOps(ctx),
    ...eventOps(ctx),
    ...contentOps(ctx),
  };
  const lock = new TxLock();
  // Prepared once: db.exec() parses its SQL on every call, which showed in the conversational profile.
  const tx = {
    begin: db.prepare("BEGIN IMMEDIATE"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
  };

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
      const since = ownAuthChanges;
      if (lock.users === 0) return settled(since, run(args));
      const release = await lock.acquire();
      let result: unknown;
      try {
        result = run(args);
      } finally {
        release();
      }
      return settled(since, result);
    };
  }

  /** Opens a transaction whose wake-ups and auth announcements wait for its commit. */
  const begin = () => {
    tx.begin.run();
    pending = new Set();
  };
  // The store's own commits move the change counter too, so the look after one goes to data_version: a
  // commit that wrote no page leaves the counter where it was, and then a foreign commit right after it
  // would look like ours.
  const commit = () => {
    tx.commit.run();
    const ready = pending ?? [];
    const announce = authPending;
    pending = null;
    authPending = false;
    emit(ready);
    if (announce) emitAuth();
  };
  const rollback = () => {
    if (db.inTransaction) tx.rollback.run();
    pending = null;
    authPending = false;
    dropUndoable(); // what the transaction read may be undone
  };
  const savepoint = {
    open: db.prepare("SAVEPOINT store_tx"),
    release: db.prepare("RELEASE store_tx"),
    rollbackTo: db.prepare("ROLLBACK TO store_tx"),
  };
  type Body<T> = (tx: StoreOps) => Promise<T>;
  /** A store transaction by itself: BEGIN IMMEDIATE, the body, COMMIT (the lock is held). */
  const bodyAlone = async <T>(fn: Body<T>): Promise<T> => {
    try {
      begin();
      const result = await fn(txOps as unknown as StoreOps);
      commit();
      return result;
    } catch (err) {
      rollback();
      throw storeError(err);
    }
  };
  /** A store transaction inside a group batch: its own savepoint, undone alone when it throws. */
  const bodyInBatch = async <T>(fn: Body<T>): Promise<T> => {
    savepoint.open.run();
    try {
      const result = await fn(txOps as unknown as StoreOps);
      savepoint.release.run();
      return result;
    } catch (err) {
      if (db.inTransaction) {
        savepoint.rollbackTo.run();
        savepoint.release.run();
        dropUndoable();
      }
      throw storeError(err);
    }
  };
  // The queue's hot writes and the store's transactions are group-committed (group-commit.ts).
  const group = groupCommit({
    begin,
    commit,
    rollback,
    inTransactionNow: () => db.inTransaction,
    acquire: () => lock.acquire(),
  });
  for (const name of GROUPED) {
    const fn = sync[name] as AnyFn;
    const op = (args: unknown[]) => () => {
      try {
        return fn(...args);
      } catch (err) {
        throw storeError(err);
      }
    };
    storeOps[name] = (...args) => {
      const run = op(args);
      return group.submit({ inBatch: run, alone: run });
    };
  }
  // An idle agent's claim (a driver waiting in long-polls with nothing queued) reads and writes nothing,
  // so it is answered without joining a batch: the queue, the turn's wait and the lock cost more than
  // the claim. A write that readies an event and is still queued has not committed; the
  // poll then waits and that write's notify wakes it.
  const groupedClaim = storeOps.claimEvents as StoreOps["claimEvents"];
  storeOps.claimEvents = ((input: ClaimInput) =>
    ctx.isIdle(input.agentId)
      ? Promise.resolve({ events: [], expiredLeases: 0, newlyFailed: 0 })
      : groupedClaim(input)) as AnyFn;

  let closed = false;
  const store: Store = {
    ...(storeOps as unknown as StoreOps),
    kind: "sqlite",
    async transaction(fn) {
      const since = ownAuthChanges;
      return settled(
        since,
        await group.submit({ inBatch: () => bodyInBatch(fn), alone: () => bodyAlone(fn) }),
      );
    },
    onEventsReady(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // Every write that readies an event runs in this process and notifies directly: nothing can be missed.
    onWakeupsMissed: () => () => undefined,
    onAuthChanged(listener) {
      authListeners.add(listener);
      return () => authListeners.delete(listener);
    },
    // Every auth change is announced at its commit (this process) or seen by authCacheSafe (another
    // process's commit moves data_version), so time is only a bound on the unforeseen: ten minutes.
    authCacheMaxAgeMs: 10 * 60_000,
    // Operator commands (`cap-kernel tokens revoke --db …`) may write the file from another process while
    // this one serves: any foreign write drops the token caches before they are trusted again. Looked for
    // every 5 ms at most; the writer's settle wait makes that enough for every request sent after its
    // revocation answered (foreign-commits.ts).
    authCacheSafe: () => {
      if (closed) return false;
      foreign.lookIfDue();
      return true;
    },
    // Every in-process write that readies an event notifies (onEventsReady), and lease ends are scheduled
    // by the polls and claims themselves; only another process's commit (`cap-kernel emit --db …`, a second
    // kernel on the file) can ready one unseen, and that moves data_version.
    sweepNeeded: () => !closed && foreign.sweepNeeded(),
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
      authListeners.clear();
      const release = await lock.acquire();
      try {
        await group.flushNow();
        await foreign.close();
        db.close();
      } finally {
        release();
      }
    },
  };
  return store;
}
