/**
 * Group commit for the queue's hot writes on SQLite (claims, acks, batch acks, renewals, releases): the
 * ones that arrive during one turn of the event loop run in one transaction, one WAL append, instead of
 * one each. Measured on the batch drain, a commit cost more than the 50 row updates it carried, and the
 * claims of agents served by one pod touch the same pages (their events are enqueued side by side), so a
 * shared commit writes each page once.
 *
 * Each op still settles exactly as alone: ops run in arrival order, each multi-statement op inside its own
 * savepoint (better-sqlite3 nests its transactions that way), an op that throws is rolled back alone and
 * its caller gets the error, and every caller is answered only once the batch has committed. When the
 * batch as a whole fails (the commit, or an error that ended the transaction), nothing of it was written
 * and every op is run again alone, so one failure never becomes another's.
 *
 * Must never: answer a write before it has committed, or run while a store transaction holds the database
 * (the flush takes the store's lock like any op).
 */

interface Queued {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitDeps {
  /** Runs `fn` in one BEGIN IMMEDIATE … COMMIT, holding wake-ups back until it has committed. */
  inTransaction: <T>(fn: () => T) => T;
  /** True while a transaction is open: an op's error that ended it aborts the whole batch. */
  inTransactionNow: () => boolean;
  /** Runs `fn` holding the store's lock (waits for a running `store.transaction`). */
  withLock: <T>(fn: () => T) => Promise<T>;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export function groupCommit({ inTransaction, inTransactionNow, withLock }: GroupCommitDeps) {
  let queue: Queued[] = [];
  let scheduled = false;

  const runAlone = (q: Queued) => {
    try {
      q.resolve(q.run());
    } catch (err) {
      q.reject(err);
    }
  };

  /** Writes everything queued so far; synchronous once the lock is held. */
  const drain = () => {
    const batch = queue;
    queue = [];
    if (batch.length === 1) return runAlone(batch[0] as Queued);
    let outcomes: Outcome[];
    try {
      outcomes = inTransaction(() =>
        batch.map((q): Outcome => {
          try {
            return { ok: true, value: q.run() };
          } catch (err) {
            if (!inTransactionNow()) throw err; // SQLite rolled the whole transaction back
            return { ok: false, err };
          }
        }),
      );
    } catch {
      for (const q of batch) runAlone(q);
      return;
    }
    for (const [i, q] of batch.entries()) {
      const o = outcomes[i] as Outcome;
      if (o.ok) q.resolve(o.value);
      else q.reject(o.err);
    }
  };

  const flush = async () => {
    scheduled = false;
    if (queue.length === 0) return;
    try {
      await withLock(drain);
    } catch (err) {
      for (const q of queue.splice(0)) q.reject(err);
    }
  };

  return {
    /** Queues `run` for this turn's commit; resolves with its result once that has committed. */
    submit<T>(run: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ run, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    /** Writes what is queued now (before the store closes). */
    flushNow: () => {
      if (queue.length > 0) drain();
    },
  };
}
