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
/** One write: how it runs inside a batch's transaction, and how it runs by itself. */
export interface GroupedOp<T> {
    /** Runs inside the open batch transaction; rolls its own statements back when it throws. */
    inBatch: () => T | Promise<T>;
    /** Runs with the lock held and no transaction open (commits by itself). */
    alone: () => T | Promise<T>;
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
export declare function groupCommit({ begin, commit, rollback, inTransactionNow, acquire }: GroupCommitDeps): {
    /** Queues `op` for the next commit; resolves with its result once that has committed. */
    submit<T>(op: GroupedOp<T>): Promise<T>;
    /** Writes what is queued now (before the store closes); the caller holds the lock. */
    flushNow: () => Promise<void>;
};
