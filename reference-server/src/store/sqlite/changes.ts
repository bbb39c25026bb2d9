/**
 * The SQLite store's change feed (../contract.ts, StoreChanges). Every write that readies or cancels an
 * event or changes auth runs in this process and says so (notify, cancelled, authChanged); inside a
 * transaction the announcement waits for the commit and is dropped by a rollback. Another process's commit to the file
 * (an operator command, a second kernel) is found by a look (foreign-commits.ts): it drops every cache
 * registered as undoable and is announced as an auth change, and the long-poll backstop and the
 * cancellation watches' sweep each run once.
 *
 * Must never: announce a write that did not commit, or promise authTrusted once the store is closed.
 */
import type Database from "better-sqlite3";
import { ChangeFeed } from "../change-feed.js";
import { watchForeignCommits } from "./foreign-commits.js";

export interface SqliteChangesOptions {
  db: Database.Database;
  path: string;
  checkpointThreadFrames: number | false;
}

export type SqliteChanges = ReturnType<typeof sqliteChanges>;

export function sqliteChanges({ db, path, checkpointThreadFrames }: SqliteChangesOptions) {
  let closed = false;
  const undoables: Array<() => void> = [];
  const notifyHooks: Array<(agentId: string) => void> = [];
  /** Forgets everything read that a rollback or another process's commit may have made untrue. */
  const dropUndoable = () => {
    for (const drop of undoables) drop();
  };
  const foreign = watchForeignCommits({
    db,
    path,
    checkpointThreadFrames,
    onForeignCommit: () => {
      dropUndoable();
      feed.auth();
    },
  });
  const feed = new ChangeFeed({
    // Every auth change is announced at its commit (this process) or found by a look (another process's
    // commit), so time only bounds the unforeseen.
    authTrusted: () => {
      if (closed) return false;
      foreign.lookIfDue();
      return true;
    },
    authMaxAgeMs: 10 * 60_000,
    // Lease ends are scheduled by the polls themselves; only another process's commit can ready an event unseen.
    readyComplete: () => closed || !foreign.sweepNeeded("ready"),
    // Likewise for cancels: only another process's commit can cancel an event unannounced.
    cancelComplete: () => closed || !foreign.sweepNeeded("cancel"),
  });
  // Ready hints go out in a microtask (the write's caller first); auth changes synchronously, so that a
  // request that starts after the revoking write has returned already misses every cache.
  const emitReady = (ids: string[]) => {
    if (ids.length === 0) return;
    queueMicrotask(() => {
      for (const id of ids) feed.ready(id);
    });
  };
  const emitCancels = (pairs: [string, string][]) => {
    if (pairs.length === 0) return;
    queueMicrotask(() => {
      for (const [agentId, eventId] of pairs) feed.cancel(agentId, eventId);
    });
  };
  let pending: Set<string> | null = null;
  let cancelsPending: [string, string][] = [];
  let authPending = false;
  // Auth changes this store committed, for the settle wait below.
  let ownAuthChanges = 0;

  return {
    feed,
    /** Drops the undoable caches when another process has committed since the last look (≤ LOOK_MS old). */
    freshen: () => foreign.lookIfDue(),
    /** Registers a cache of rows read from this connection, dropped by a rollback or a foreign commit. */
    undoable(drop: () => void): void {
      undoables.push(drop);
    },
    /** Runs `hook` at once (before the commit) on every notify: a cache that must not outlive the write. */
    onNotify(hook: (agentId: string) => void): void {
      notifyHooks.push(hook);
    },
    /** This agent may have ready events, once the surrounding transaction (if any) commits. */
    notify(agentId: string): void {
      for (const hook of notifyHooks) hook(agentId);
      if (pending) pending.add(agentId);
      else emitReady([agentId]);
    },
    /** This agent's event was cancelled, once the surrounding transaction (if any) commits. */
    cancelled(agentId: string, eventId: string): void {
      if (pending) cancelsPending.push([agentId, eventId]);
      else emitCancels([[agentId, eventId]]);
    },
    /** A runtime token's authentication may have changed, once the surrounding transaction commits. */
    authChanged(): void {
      ownAuthChanges++;
      if (pending) authPending = true;
      else feed.auth();
    },
    /** A transaction opened: hold announcements until it ends. */
    hold(): void {
      pending = new Set();
    },
    /** It committed: deliver what it held. */
    deliver(): void {
      const ready = pending ? [...pending] : [];
      const cancels = cancelsPending;
      const announce = authPending;
      pending = null;
      cancelsPending = [];
      authPending = false;
      emitReady(ready);
      emitCancels(cancels);
      if (announce) feed.auth();
    },
    /** It rolled back: drop what it held and what it read. */
    discard(): void {
      pending = null;
      cancelsPending = [];
      authPending = false;
      dropUndoable();
    },
    /** A mark to pass to `settled` (taken before a call that may change auth). */
    mark: () => ownAuthChanges,
    /** Resolves `result` once an auth change made since `mark` has settled (foreign-commits.ts). */
    async settled<T>(mark: number, result: T): Promise<T> {
      if (ownAuthChanges !== mark) await foreign.settle();
      return result;
    },
    async close(): Promise<void> {
      closed = true;
      feed.close();
      await foreign.close();
    },
  };
}
