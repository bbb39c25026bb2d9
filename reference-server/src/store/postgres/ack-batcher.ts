/**
 * The PostgreSQL ack batcher: outside a transaction the acks of concurrent requests share one write
 * (`writeAcks` in events/settle.ts, the same write a single or batch ack makes alone).
 *
 * Why share: the one-ack drain spent most of PostgreSQL's time per event on the statement and its commit
 * (executor start-up, the WAL flush and its `fdatasync`), not on the row. One statement runs at a time;
 * calls that arrive meanwhile wait for it and go together in the next, so under load one commit carries
 * the acks of every driver, and an ack that finds nothing running is written in the check phase of its
 * event-loop turn (the requests read in that turn join it). A second statement in flight would halve the
 * batches and cost more than the wait it saves. A call's items stay in one statement,
 * so a batch ack still settles all of its items or none.
 *
 * Why the next statement goes out before the answers: the drain is bound by the statement's round trip,
 * and answering first put every answer's HTTP write (and the pool's tick for a client) between one commit
 * and the next statement. The batcher keeps one pool client while its queue is not empty and sends the
 * waiting calls on it as soon as a statement returns (its gain: docs/benchmarks.md, "Why the hot path looks
 * like this").
 *
 * Must never: answer a call before the statement carrying it has committed, let one call's failure decide
 * another's answer (a shared statement that fails for a reason other than an outage is written again
 * call by call; an outage fails each call, as its own statement would have), or settle part of a call.
 */

import type { Db } from "./db.js";
import { isOutage } from "./db.js";
import { type AckCall, type WriteAcks, writeAck, writeAcks } from "./events/settle.js";

interface Waiting {
  call: AckCall;
  resolve: (found: boolean[]) => void;
  reject: (err: unknown) => void;
}

/**
 * A connection the batcher keeps while it has calls to write, given back when its queue is empty. A held
 * pool client sends a statement at once, where the pool's own `query` first waits a tick for a client,
 * after the answers of the statement before had been written to their HTTP sockets.
 */
export interface HeldConnection {
  db: Db;
  /** Gives the connection back; with an error (an outage met on it), it is closed instead of reused. */
  release(err?: Error): void;
}

export interface AckBatcherOptions {
  /** Most items in one statement (whole calls only; a larger call goes alone). Default 1000. */
  maxItems?: number;
}

type Outcome = { found: boolean[][] } | { error: unknown };

/** Calls written together, one statement at a time; see the module comment. */
export function ackBatcher(hold: () => Promise<HeldConnection>, options: AckBatcherOptions = {}): WriteAcks {
  const maxItems = options.maxItems ?? 1000;
  let queue: Waiting[] = [];
  let running = false;
  let scheduled = false;

  const take = (): Waiting[] => {
    let items = 0;
    let n = 0;
    for (const w of queue) {
      if (n > 0 && items + w.call.items.length > maxItems) break;
      items += w.call.items.length;
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    return batch;
  };

  const send = (db: Db, batch: Waiting[]): Promise<Outcome> =>
    writeAcks(
      db,
      batch.map((w) => w.call),
    ).then(
      (found) => ({ found }),
      (error: unknown) => ({ error }),
    );

  const alone = async (db: Db, w: Waiting) => {
    try {
      w.resolve(await writeAck(db, w.call));
    } catch (err) {
      w.reject(err);
    }
  };

  const run = async () => {
    scheduled = false;
    running = true;
    let conn: HeldConnection | undefined;
    let next: { batch: Waiting[]; db: Db; outcome: Promise<Outcome> } | undefined;
    while (next || queue.length > 0) {
      if (!next) {
        const batch = take();
        if (!conn) {
          try {
            conn = await hold();
          } catch (err) {
            for (const w of batch) w.reject(err);
            continue;
          }
        }
        next = { batch, db: conn.db, outcome: send(conn.db, batch) };
      }
      const { batch, db, outcome } = next;
      next = undefined;
      const done = await outcome;
      if ("found" in done) {
        // The calls that came in meanwhile go to PostgreSQL before these answers go to their sockets.
        if (queue.length > 0) {
          const following = take();
          next = { batch: following, db, outcome: send(db, following) };
        }
        for (const [i, w] of batch.entries()) w.resolve(done.found[i] ?? []);
      } else if (batch.length === 1 || isOutage(done.error)) {
        // An outage fails every call as its own statement would have, and the connection is not reused.
        for (const w of batch) w.reject(done.error);
        if (isOutage(done.error)) {
          conn?.release(done.error instanceof Error ? done.error : new Error(String(done.error)));
          conn = undefined;
        }
      } else {
        // Anything else (a deadlock with a concurrent batch ack, say) is one call's business, so each is
        // written again on its own.
        for (const w of batch) await alone(db, w);
      }
    }
    conn?.release();
    running = false;
  };

  return (call) =>
    new Promise<boolean[]>((resolve, reject) => {
      queue.push({ call, resolve, reject });
      if (running || scheduled) return;
      scheduled = true;
      setImmediate(run);
    });
}
