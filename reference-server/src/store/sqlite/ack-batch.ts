/**
 * Group commit for single acks on SQLite: the acks that arrive during one turn of the event loop are
 * written in one transaction (one WAL append, at most one checkpoint) instead of one each — measured on
 * the drain, a commit cost more than the UPDATE itself. Each ack still settles exactly as alone: the
 * statements run in arrival order, each caller gets its own result once the batch has committed, and if
 * the batch fails as a whole every ack is retried alone, so one failure never becomes another's.
 *
 * Must never: answer an ack before its write has committed, or run while a store transaction holds the
 * database (the flush takes the store's lock like any op).
 */
import type { SyncOps } from "./types.js";

type AckInput = Parameters<SyncOps["ackEvent"]>[0];
type AckResult = ReturnType<SyncOps["ackEvent"]>;

interface Queued {
  input: AckInput;
  resolve: (r: AckResult) => void;
  reject: (err: unknown) => void;
}

export function ackBatcher(
  ack: SyncOps["ackEvent"],
  inTransaction: <T>(fn: () => T) => T,
  withLock: <T>(fn: () => T) => Promise<T>,
) {
  let queue: Queued[] = [];
  let scheduled = false;

  const runAlone = (q: Queued) => {
    try {
      q.resolve(ack(q.input));
    } catch (err) {
      q.reject(err);
    }
  };

  /** Writes everything queued so far; synchronous once the lock is held. */
  const drain = () => {
    const batch = queue;
    queue = [];
    if (batch.length === 1) return runAlone(batch[0] as Queued);
    let results: AckResult[];
    try {
      results = inTransaction(() => batch.map((q) => ack(q.input)));
    } catch {
      for (const q of batch) runAlone(q);
      return;
    }
    for (const [i, q] of batch.entries()) q.resolve(results[i] as AckResult);
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
    ackEvent(input: AckInput): Promise<AckResult> {
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
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
