/**
 * A PostgreSQL store transaction: one pool client from BEGIN to COMMIT, its ops on that client, its
 * wake-ups, cancels and auth announcements delivered only once it has committed.
 *
 * Must never: leave the client checked out after the transaction settles, reuse a client whose ROLLBACK
 * or COMMIT failed, or report a transaction PostgreSQL rolled back as committed.
 */
import type pg from "pg";
import type { StoreOps } from "../contract.js";
import type { PostgresChanges } from "./changes.js";
import { type Db, storeError } from "./db.js";

/** The ops of one transaction on `client`: wake-ups and auth nonces collected, `live` false once it ends. */
export type TransactionOps = (
  client: pg.PoolClient,
  wake: Db["wake"],
  live: () => boolean,
  onAuth: (nonce: string) => Promise<void>,
  cancelled: Db["cancelled"],
) => StoreOps;

export async function runTransaction<T>(
  pool: pg.Pool,
  changes: PostgresChanges,
  opsOn: TransactionOps,
  fn: (tx: StoreOps) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw storeError(err);
  }
  const woken: string[] = [];
  const cancels: { agentId: string; eventId: string }[] = [];
  const announced: string[] = [];
  let released = false;
  let open = true;
  let broken: Error | undefined;
  // A checked-out client has no error listener of the pool's: without this one, the server going away
  // between two statements of the transaction would be an unhandled 'error' event (a crash).
  const onClientError = (err: Error) => {
    broken = err;
  };
  client.on("error", onClientError);
  try {
    await client.query("BEGIN").catch((err: Error) => {
      broken = err;
      throw storeError(err);
    });
    const tx = opsOn(
      client,
      (ids) => woken.push(...ids),
      () => open,
      async (nonce) => {
        announced.push(nonce);
      },
      (pairs) => cancels.push(...pairs),
    );
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      open = false;
      await client.query("ROLLBACK").catch((e: Error) => {
        broken = e;
      });
      // A statement that failed because the connection broke aborts the transaction: nothing applied.
      throw storeError(err);
    }
    open = false;
    let tag: string;
    try {
      tag = (await client.query("COMMIT")).command;
    } catch (err) {
      broken = err as Error;
      // Outcome unknown to us only if the connection broke after COMMIT reached the server; either way
      // the transaction applied wholly or not at all.
      throw storeError(err);
    }
    // PostgreSQL answers COMMIT of a transaction that an error aborted (fn caught a failed statement and
    // resolved anyway) with a ROLLBACK: nothing was written, so the caller must not believe otherwise.
    if (tag === "ROLLBACK") throw new Error("transaction rolled back: a statement inside it failed");
    changes.ready(woken);
    changes.cancelled(cancels);
    if (announced.length > 0) {
      // The connection is not needed while the other replicas drop their caches.
      released = true;
      client.off("error", onClientError);
      client.release();
      await changes.authCommitted(announced);
    }
    return result;
  } finally {
    open = false;
    client.off("error", onClientError);
    if (!released) client.release(broken);
  }
}
