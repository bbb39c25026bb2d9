/**
 * The lease rules of the SQLite queue, each written once as a SQL fragment over the `events` row: what
 * "ready", "held", "exhausted", "released" and "cancelled" mean, and the state changes of claim, ack,
 * retire, release, requeue, fail and cancel. Every statement of the queue (`events/`) is composed from
 * these names, and `test/store/lease-rules.test.ts` fails on a statement that restates one;
 * `../postgres/lease-rules.ts` is the same list in PostgreSQL.
 *
 * A fragment that needs a value takes the parameter's SQL text (`@now`, `?`), so each statement keeps
 * its own binding style. Columns are unqualified: use a fragment where `events` is the only table with
 * those columns in scope.
 *
 * Must never: read the clock (every instant is a parameter), or stop matching the partial indexes
 * `events_pending` and `events_leased` (SQLite uses them only for a WHERE that contains their predicates,
 * `PENDING` and `LEASED`, as written).
 */

/** A pending event is ready now and has used none of its attempts since its last requeue. */
export const PENDING = "state = 'pending'";

/** Leased: delivered, and either held, released or ended (the lease end decides which). */
export const LEASED = "state = 'leased'";

/** The budget: an event may be delivered `maxAttempts` times after its last requeue (`attempt_base`). */
export const ATTEMPTS_LEFT = (maxAttempts: string) => `attempts - attempt_base < ${maxAttempts}`;
export const BUDGET_USED = (maxAttempts: string) => `attempts - attempt_base >= ${maxAttempts}`;

/** A lease ends at `lease_expires_at`: from that instant on nobody holds the delivery. */
export const LEASE_ENDED = (now: string) => `${LEASED} AND lease_expires_at <= ${now}`;
const LEASE_RUNS = (now: string) => `${LEASED} AND lease_expires_at > ${now}`;

/** A released delivery stays leased until `availableAt`, marked by `release_attempts = attempts`. */
const NOT_RELEASED = "(release_attempts IS NULL OR release_attempts <> attempts)";

/** READY (second arm): an ended lease with attempts left is delivered again. */
export const READY_AGAIN = (now: string, maxAttempts: string) =>
  `${LEASE_ENDED(now)} AND ${ATTEMPTS_LEFT(maxAttempts)}`;

/** EXHAUSTED: an ended lease with the budget used is retired, never delivered again. */
export const EXHAUSTED = (now: string, maxAttempts: string) =>
  `${LEASE_ENDED(now)} AND ${BUDGET_USED(maxAttempts)}`;

/** A lease that will make its event ready when it ends (ended or not): the ready instants read it. */
export const WILL_BE_READY = (maxAttempts: string) => `${LEASED} AND ${ATTEMPTS_LEFT(maxAttempts)}`;

/** NEXT_EXPIRY: the running leases whose end is a wake-up (the event is then ready, or retired). */
export const NEXT_EXPIRY = (now: string, maxAttempts: string) =>
  `${LEASE_RUNS(now)} AND ${ATTEMPTS_LEFT(maxAttempts)}`;

/** HELD: someone holds the delivery — leased, lease running, not given back. */
export const HELD = (now: string) => `${LEASE_RUNS(now)} AND ${NOT_RELEASED}`;

/** Leased and not given back: the lease runs, or it ended without a release (a reclaim records it expired). */
export const UNRELEASED = `${LEASED} AND ${NOT_RELEASED}`;

/** FENCE: only the holder of delivery number `attempts` may renew, release or replay it. */
export const FENCE = (attempts: string, now: string) => `attempts = ${attempts} AND ${HELD(now)}`;

/**
 * An ack settles any event not acked yet, whatever its lease (first ack wins): one whose result is not
 * recorded. A cancelled event is still unacked until its driver acks it (feature `cancel`).
 */
export const UNACKED = "state != 'acked' AND acked_at IS NULL";

/** CLAIM (SET): a claim leases the event until `until` and counts the attempt — at claim, never at ack. */
export const LEASE = (until: string) =>
  `state = 'leased', attempts = attempts + 1, lease_expires_at = ${until}`;

/**
 * CLAIM under a poll (SET, beside LEASE): the delivery is recorded under the poll's id with the attempt it
 * gets, so FENCE("poll_attempts", …) finds it while it is held, and a later claim makes the record stale.
 */
export const POLL_TAG = (pollId: string) => `poll_id = ${pollId}, poll_attempts = attempts + 1`;

/** A cancelled event is terminal: never ready, held, retired or failed; only an ack records its result. */
export const CANCELLED = "state = 'cancelled'";

/** ACK (SET): the event becomes acked with its result; a cancelled one records the result and stays cancelled. */
export const ACK = (at: string, result: string) =>
  `state = CASE WHEN ${CANCELLED} THEN state ELSE 'acked' END, acked_at = ${at}, result = ${result}`;

/** A failed event (a dead letter) is kept and listed until an operator requeues it. */
export const FAILED = "state = 'failed'";

/** FAIL (SET): the event leaves the queue at `at` for `reason`. */
export const FAIL = (at: string, reason: string) => `${FAILED}, failed_at = ${at}, fail_reason = ${reason}`;

/** RETIRE (SET): failed at the instant its last lease ended, so it is never delivered maxAttempts + 1 times. */
export const RETIRE = FAIL("lease_expires_at", "'max_attempts'");

/** RELEASE (SET, with the lease end moved): marks the delivery given back; the next claim unmarks it. */
export const MARK_RELEASED = (reason: string) => `release_attempts = attempts, release_reason = ${reason}`;

/** REQUEUE (SET): a fresh budget of maxAttempts deliveries, while `attempts` keeps counting up. */
export const REQUEUE =
  "state = 'pending', attempt_base = attempts, lease_expires_at = NULL, failed_at = NULL, fail_reason = NULL";

/** Open: not settled yet (pending, or leased however: held, released or ended), so a cancel takes it. */
export const OPEN = `(${PENDING} OR ${LEASED})`;

/**
 * CANCEL (SET): the event is terminal at once, keeping its attempts and lease; the delivery held at `now`
 * (if any) is recorded as the one cancelled, which the cancellation watch answers.
 */
export const CANCEL = (now: string, reason: string, byKind: string, byId: string) =>
  `state = 'cancelled', cancel_reason = ${reason}, cancelled_at = ${now}, cancelled_by_kind = ${byKind}, ` +
  `cancelled_by_id = ${byId}, cancelled_attempts = CASE WHEN ${HELD(now)} THEN attempts END`;

/** The cancelled delivery: delivery number `attempts` was held when its event was cancelled. */
export const CANCELLED_DELIVERY = (attempts: string) => `${CANCELLED} AND cancelled_attempts = ${attempts}`;
