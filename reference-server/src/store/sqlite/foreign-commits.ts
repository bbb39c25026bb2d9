/**
 * Other processes' commits to the store's file (an operator command such as `cap-kernel tokens revoke
 * --db …`, `cap-kernel emit --db …`, a second kernel): the store's caches must drop what such a commit may
 * have made untrue. data_version moves only on other connections' commits, but reading it is a read
 * transaction, so a look first reads the wal-index change counter (change-counter.ts), which no commit
 * leaves unmoved, and goes to data_version only after some commit, ours included.
 *
 * Looks happen at most every LOOK_MS, for the token caches and the read caches alike: a look is a system
 * call, which showed on the hot path when the token caches looked on every request.
 * "Refused from the next request on" still holds for every write made through a SQLite store, in any
 * process: one that changes auth answers only AUTH_SETTLE_MS after its commit (settle), so a request sent
 * after that answer is authenticated by a look made after the commit. Other caches (idle agents, active
 * installations) see a foreign write at most LOOK_MS late, which only races that write.
 *
 * The change counter's read also gives the WAL's frame count: the first look that finds the WAL big
 * enough starts the checkpoint thread (checkpointer.ts).
 *
 * Must never: report no foreign commit when data_version moved, or settle for less than AUTH_SETTLE_MS by
 * the clock.
 */
import type Database from "better-sqlite3";
import { NO_CHANGE_COUNTER, openChangeCounter } from "./change-counter.js";
import { type Checkpointer, startCheckpointer } from "./checkpointer.js";

export const LOOK_MS = 5;
export const AUTH_SETTLE_MS = 2 * LOOK_MS;

export interface ForeignCommitsOptions {
  db: Database.Database;
  /** The database file; ":memory:" is this connection's alone, and nothing is ever looked for. */
  path: string;
  /** WAL frames that start the checkpoint thread; false: never. */
  checkpointThreadFrames: number | false;
  /** Another connection committed since the last look: drop what it may have made untrue. */
  onForeignCommit: () => void;
}

export function watchForeignCommits({
  db,
  path,
  checkpointThreadFrames,
  onForeignCommit,
}: ForeignCommitsOptions) {
  const shared = path !== ":memory:";
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  const counter =
    shared && db.pragma("journal_mode", { simple: true }) === "wal"
      ? openChangeCounter(path)
      : NO_CHANGE_COUNTER;
  let checkpointer: Checkpointer | null = null;
  let seenChange = counter.read(); // read before data_version: a commit in between is then seen next time
  let seenVersion = dataVersion.get() as number;
  // Each sweep's own mark (sweepNeeded): the looks move seenVersion, and the two sweeps (the long-poll
  // backstop and the cancellation watches') each ask for themselves.
  const swept = { ready: seenVersion, cancel: seenVersion };
  let lookedAt = Number.NEGATIVE_INFINITY;

  const look = () => {
    if (!shared) return;
    lookedAt = performance.now();
    const change = counter.read();
    if (checkpointer === null && checkpointThreadFrames !== false && counter.frames >= checkpointThreadFrames)
      checkpointer = startCheckpointer({ path, minFrames: checkpointThreadFrames });
    if (change !== null && change === seenChange) return; // no commit to the file since the last look
    const v = dataVersion.get() as number;
    seenChange = change;
    if (v === seenVersion) return;
    seenVersion = v;
    onForeignCommit();
  };

  return {
    /** Looks unless the last look is less than LOOK_MS old. */
    lookIfDue(): void {
      if (performance.now() - lookedAt >= LOOK_MS) look();
    },
    /**
     * Whether another connection committed since the last call for this sweep (the wake hub's backstop,
     * the cancellation watches'): every write of this process that readies or cancels an event announces
     * it, so only a foreign one can do either unseen.
     */
    sweepNeeded(sweep: "ready" | "cancel"): boolean {
      const v = dataVersion.get() as number;
      if (v === swept[sweep]) return false;
      swept[sweep] = v;
      return true;
    },
    /** Waits AUTH_SETTLE_MS by the clock after a write that changed auth (files only; see above). */
    async settle(): Promise<void> {
      if (!shared) return;
      // Timed by the clock, not by one timer: a timer may fire early against performance.now().
      const until = performance.now() + AUTH_SETTLE_MS;
      for (let left = AUTH_SETTLE_MS; left > 0; left = until - performance.now())
        await new Promise((r) => setTimeout(r, Math.ceil(left)));
    },
    /** Stops the checkpoint thread and the counter (the database is about to close). */
    async close(): Promise<void> {
      await checkpointer?.close();
      counter.close();
    },
  };
}
