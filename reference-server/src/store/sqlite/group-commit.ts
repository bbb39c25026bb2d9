/**
 * Group commit on SQLite: the queue's hot writes (claims, acks, batch acks, renewals, releases) and the
 * store's transactions (a post with its fan-out events, an install, …) that arrive during one turn of the
 * event loop and the next run in one transaction, one WAL append, instead of one each. Measured on the batch drain, a
 * commit cost more than the 50 row updates it carried; in the conversational profile the posts' own
 * commits were the largest item. The writes of one turn touch the same pages (the rightmost leaves of the
 * events, messages and index b-trees), so a shared commit writes each page once.
 *
 * Each op still settles exactly as alone: ops run in arrival order, one after the other (a transaction's
 * body is awaited before the next op starts), each inside its own savepoint where it has several
 * statements, an op that throws is rolled back alone and its caller gets the error, and every caller is
 * answered only once the batch has committed. When the batch as a whole fails (BEGIN, the commit, or an
 * error that ended the transaction), nothing of it was written and every op is run again alone, so one
 * failure never becomes another's.
 *
 * Must never: answer a write before it has committed, or run while another op holds the database (the
 * flush holds the store's lock from BEGIN to COMMIT).
 */
import type { SqliteAccelerator } from "./kit.js";
import { guarded } from "./transactions.js";

/** One write: how it runs inside a batch's transaction, and how it runs by itself. */
export interface GroupedOp<T> {
  /** Runs inside the open batch transaction; rolls its own statements back when it throws. */
  inBatch: () => T | Promise<T>;
  /** Runs with the lock held and no transaction open (commits by itself). */
  alone: () => T | Promise<T>;
}

interface Queued extends GroupedOp<unknown> {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitDeps {
  /** Opens the batch's transaction (BEGIN IMMEDIATE), holding wake-ups back until it commits. */
  begin: () => void;
  /** Commits it and delivers what it held back; throws when the commit fails. */
  commit: () => void;
  /** Rolls it back if it is still open and forgets what its ops read. */
  rollback: () => void;
  /** True while a transaction is open: an op's error that ended it aborts the whole batch. */
  inTransactionNow: () => boolean;
  /** Takes the store's lock (waits for the op or batch that holds it); resolves with its release. */
  acquire: () => Promise<() => void>;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof (v as { then?: unknown } | null)?.then === "function";

export function groupCommit({ begin, commit, rollback, inTransactionNow, acquire }: GroupCommitDeps) {
  let queue: Queued[] = [];
  let scheduled = false;

  const runAlone = async (q: Queued) => {
    try {
      q.resolve(await q.alone());
    } catch (err) {
      q.reject(err);
    }
  };

  /** The batch's outcomes, in order; throws when the batch failed as a whole (nothing was written). */
  const runBatch = async (batch: Queued[]): Promise<Outcome[]> => {
    begin();
    try {
      const outcomes: Outcome[] = [];
      for (const q of batch) {
        try {
          const v = q.inBatch();
          outcomes.push({ ok: true, value: isThenable(v) ? await v : v });
        } catch (err) {
          if (!inTransactionNow()) throw err; // SQLite rolled the whole transaction back
          outcomes.push({ ok: false, err });
        }
      }
      commit();
      return outcomes;
    } catch (err) {
      rollback();
      throw err;
    }
  };

  /** Writes everything queued so far; the caller holds the lock. */
  const drain = async () => {
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    if (batch.length === 1) return runAlone(batch[0] as Queued);
    let outcomes: Outcome[];
    try {
      outcomes = await runBatch(batch);
    } catch {
      for (const q of batch) await runAlone(q);
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
    const release = await acquire();
    try {
      await drain(); // never throws: every op's outcome goes to its caller
    } finally {
      release();
    }
  };

  // A batch is written in the check phase of the turn AFTER its first write: the requests read in the
  // next poll phase join it, for one loop iteration of latency (docs/benchmarks.md, "Why the hot path
  // looks like this").
  const nextTurn = () => setImmediate(flush);

  return {
    /** Queues `op` for the next commit; resolves with its result once that has committed. */
    submit<T>(op: GroupedOp<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        // Built field by field, not by spreading `op`: one object shape for every queued write (a spread
        // made V8 build new hidden classes on the ack path, in perf of the one-ack drain).
        queue.push({
          inBatch: op.inBatch,
          alone: op.alone,
          resolve: resolve as (v: unknown) => void,
          reject,
        });
        if (!scheduled) {
          scheduled = true;
          setImmediate(nextTurn);
        }
      });
    },
    /** Writes what is queued now (before the store closes); the caller holds the lock. */
    flushNow: () => drain(),
  };
}

/** The writes every driver sends many of: queued and committed together per event-loop turn. */
const GROUPED = new Set(["claimEvents", "ackEvent", "ackEvents", "renewLease", "releaseEvent"]);

/** The accelerator: the queue's hot writes and every transaction go through one group commit. */
export const groupCommitAccelerator: SqliteAccelerator = {
  name: "group-commit",
  apply(kit) {
    const plain = kit.runner;
    const { bodies } = kit;
    const group = groupCommit({
      begin: bodies.begin,
      commit: bodies.commit,
      rollback: bodies.rollback,
      inTransactionNow: () => kit.db.inTransaction,
      acquire: () => kit.lock.acquire(),
    });
    kit.runner = {
      op(name, fn) {
        if (!GROUPED.has(name)) return plain.op(name, fn);
        const run = guarded(fn);
        return (...args) => {
          const once = () => run(...args);
          return group.submit({ inBatch: once, alone: once });
        };
      },
      async transaction(fn, tx) {
        const mark = kit.changes.mark();
        const result = await group.submit({
          inBatch: () => bodies.inBatch(fn, tx),
          alone: () => bodies.alone(fn, tx),
        });
        return kit.changes.settled(mark, result);
      },
      flush: () => group.flushNow(),
    };
  },
};
