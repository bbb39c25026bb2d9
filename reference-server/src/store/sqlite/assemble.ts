/**
 * Assembling an open SQLite store: the database with its pragmas and migrations, the plain store's parts
 * (kit.ts), the accelerators given, and the Store the services use.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { Store, StoreOps } from "../contract.js";
import { agentOps } from "./agents.js";
import { sqliteChanges } from "./changes.js";
import { contentOps } from "./content.js";
import { eventOps } from "./events.js";
import type { SqliteAccelerator, SqliteKit } from "./kit.js";
import { migrate } from "./migrate.js";
import type { SqliteStoreOptions } from "./options.js";
import { peopleOps } from "./people.js";
import { type AnyFn, guarded, plainRunner, storeError, TxLock, transactionBodies } from "./transactions.js";
import type { SqliteContext, SyncOps } from "./types.js";

function openDatabase(options: SqliteStoreOptions): Database.Database {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  if (options.path !== ":memory:") db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  // A checkpoint fsyncs: the WAL is checkpointed by a thread of its own (checkpointer.ts), and this
  // autocheckpoint is only the backstop for when that thread cannot keep up; the WAL file is cut back to
  // 64 MB after each. A 32 MB page cache keeps the queue's hot pages out of pread().
  db.pragma("wal_autocheckpoint = 10000");
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma("cache_size = -32768");
  // Temporary b-trees (the claim's `seq IN (SELECT … json_each)` materialises one) in memory, not in files.
  db.pragma("temp_store = MEMORY");
  migrate(db, Date.now());
  return db;
}

/** The synchronous ops as promises, for the `tx` of a transaction (the lock is already held). */
function transactionOps(sync: SyncOps): StoreOps {
  const ops = {} as Record<string, AnyFn>;
  for (const [name, fn] of Object.entries(sync) as [string, AnyFn][]) {
    const run = guarded(fn);
    ops[name] = (...args) => {
      try {
        return Promise.resolve(run(...args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
  }
  return ops as unknown as StoreOps;
}

/**
 * The store with exactly `accelerators` applied (openSqliteStore gives the list, or none); tests compose
 * their own. Kept out of the package's public types: the kit names better-sqlite3's.
 */
export function assembleSqliteStore(
  options: SqliteStoreOptions,
  accelerators: readonly SqliteAccelerator[],
): Store {
  const db = openDatabase(options);
  const changes = sqliteChanges({
    db,
    path: options.path,
    checkpointThreadFrames: options.checkpointThreadFrames ?? 1000,
  });
  const ctx: SqliteContext = {
    db,
    notify: changes.notify,
    cancelled: changes.cancelled,
    authChanged: changes.authChanged,
  };
  const lock = new TxLock();
  const bodies = transactionBodies(db, changes);
  const kit: SqliteKit = {
    db,
    lock,
    changes,
    bodies,
    sync: { ...peopleOps(ctx), ...agentOps(ctx), ...eventOps(ctx), ...contentOps(ctx) },
    quick: {},
    runner: plainRunner(lock, bodies, changes),
  };
  for (const a of accelerators) a.apply(kit);

  const tx = transactionOps(kit.sync);
  const ops = {} as Record<string, AnyFn>;
  for (const [name, fn] of Object.entries(kit.sync) as [string, AnyFn][]) ops[name] = kit.runner.op(name, fn);
  const quickClaim = kit.quick.claimEvents;
  if (quickClaim) {
    const claim = ops.claimEvents as StoreOps["claimEvents"];
    ops.claimEvents = ((input: Parameters<StoreOps["claimEvents"]>[0]) => {
      const answer = quickClaim(input);
      return answer ? Promise.resolve(answer) : claim(input);
    }) as AnyFn;
  }

  let closed = false;
  return {
    ...(ops as unknown as StoreOps),
    kind: "sqlite",
    changes: changes.feed,
    transaction: (fn) => kit.runner.transaction(fn, tx),
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
      changes.feed.close();
      const release = await lock.acquire();
      try {
        await kit.runner.flush();
        await changes.close();
        db.close();
      } finally {
        release();
      }
    },
  };
}
