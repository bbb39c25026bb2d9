/**
 * PostgreSQL claim: one statement (style.md, "Queues in SQL") retires this agent's exhausted leases, then
 * locks up to `limit` of the agent's oldest pending rows in index order (`events_pending`: agent_id, seq
 * WHERE state = 'pending'), from its claim floor on (../claim-floors.ts), and up to `limit` of its ended
 * leases with attempts left (`events_leased`), both with FOR UPDATE SKIP LOCKED, and leases the oldest
 * `limit` of them, counting the attempt. A row another claim has locked is skipped, and a row another
 * claim leased after our snapshot fails the re-check PostgreSQL applies to the locked row version, so two
 * claims — in one process or on two replicas — never return the same event. A claim for a poll named by
 * `pollId` is the same statement with the replay in front (pollClaimSql).
 *
 * Must never: read the clock (every time is `now` from the service), or wait on a row lock inside a claim
 * (a claim under a pollId waits only for another under the same pollId, on that pollId's advisory lock).
 */
import type { StoreOps } from "../../contract.js";
import { DELIVERED_EVENT_COLUMNS, EVENT_ROWS } from "../../schema.js";
import type { Db } from "../db.js";
import { EXHAUSTED, FENCE, LEASE, PENDING, POLL_TAG, READY_AGAIN, RETIRE } from "../lease-rules.js";
import { toDeliveredEvent } from "../rows.js";

type ClaimOps = Pick<StoreOps, "claimEvents">;

// $1 agent, $2 now, $3 lease ms, $4 max attempts; the limit is written into the text, one prepared
// statement per limit (at most 100; the kernel asks for at most its maxLimit, ≤ 50). With the limit a
// parameter, the generic plan joined the agent's open rows to a sequential scan of all events, so
// PostgreSQL planned every claim anew instead; with a literal the generic plan is the custom one and is
// reused. The retire CTE reads events_leased (this agent's ended leases only, so its cost does
// not grow with the backlog) and skips rows another statement holds (that statement is retiring, claiming
// or acking them); `ended` excludes exhausted rows explicitly because all CTEs share one snapshot.
// $5 is the agent's claim floor (claim-floors.ts), as an InitPlan so that the generic plan costs what the
// custom one does (with a bare $5 PostgreSQL went back to planning every claim):
// `pending` reads events_pending from there, and `floor` is the lowest pending seq at or above it in this
// statement's snapshot (before its own updates: the rows it claims are still pending), the next claim's
// floor. Ended leases are read without a floor (events_leased, by expiry). When an agent has both pending
// rows and ended leases, up to `limit` of each are locked and the oldest `limit` leased; the rest stay
// ready and are only skipped by claims running at the same moment. With one index for both states
// (events_open, before migration 007), a claim inserted an entry into it for every row it leased.
export const claimSql = (limit: number) => claimStatement(limit, "");

/**
 * The claim of a poll named by `pollId` ($6), still one statement: `tagged` takes the pollId's lock and
 * reads the rows claimed under it (poll_tagged_rows, migrations/010) in a snapshot taken after the lock,
 * so a poll that waited for another with the same pollId sees that one's claim — a lock taken by the
 * statement itself would not refresh its snapshot, and the claim's row locks skip what another claim
 * holds. While one of them is still held (FENCE) the statement claims and retires nothing and answers
 * `replay`; otherwise it claims as claimSql does and records the pollId in the same UPDATE (POLL_TAG).
 */
export const pollClaimSql = (limit: number) => claimStatement(limit, " AND NOT EXISTS (SELECT 1 FROM held)");

function claimStatement(limit: number, gate: string): string {
  const forPoll = gate !== "";
  return `
  WITH ${
    forPoll
      ? `tagged AS (SELECT * FROM poll_tagged_rows($1, $6, $2)),
  held AS (SELECT 1 FROM tagged WHERE ${FENCE("poll_attempts", "$2")} LIMIT 1),
  `
      : ""
  }retired AS (
    UPDATE events SET ${RETIRE}
     WHERE id IN (SELECT id FROM events WHERE agent_id = $1 AND ${EXHAUSTED("$2", "$4")}${gate} FOR UPDATE SKIP LOCKED)
    RETURNING 1),
  pending AS (
    SELECT id, seq, state AS prev_state FROM events
     WHERE agent_id = $1 AND ${PENDING} AND seq >= (SELECT $5::bigint)${gate}
     ORDER BY seq
     LIMIT ${limit}
     FOR UPDATE SKIP LOCKED),
  ended AS (
    SELECT id, seq, state AS prev_state FROM events
     WHERE agent_id = $1 AND ${READY_AGAIN("$2", "$4")}${gate}
     ORDER BY seq
     LIMIT ${limit}
     FOR UPDATE SKIP LOCKED),
  ready AS (
    SELECT id, prev_state FROM (SELECT * FROM pending UNION ALL SELECT * FROM ended) both_states
     ORDER BY seq
     LIMIT ${limit}),
  claimed AS (
    UPDATE events e SET ${LEASE("$2 + $3")}${forPoll ? `, ${POLL_TAG("$6")}` : ""}
      FROM ready r WHERE e.id = r.id
    RETURNING e.*, r.prev_state)
  SELECT (SELECT count(*) FROM retired) AS n_retired,${forPoll ? "\n         EXISTS (SELECT 1 FROM held) AS replay," : ""}
         (SELECT seq FROM events
           WHERE agent_id = $1 AND ${PENDING} AND seq >= (SELECT $5::bigint)
           ORDER BY seq LIMIT 1) AS floor,
         c.*, p.payload::text AS payload_json
    FROM (SELECT 1) one LEFT JOIN claimed c ON true LEFT JOIN event_payloads p ON p.seq = c.seq
   ORDER BY c.seq`;
}

/** The deliveries still held under a pollId, read after pollClaimSql answered `replay`. */
const POLL_DELIVERIES = `
  SELECT ${DELIVERED_EVENT_COLUMNS.postgres} FROM ${EVENT_ROWS}
   WHERE agent_id = $1 AND poll_id = $2 AND ${FENCE("poll_attempts", "$3")}
   ORDER BY e.seq`;

/** How often a replayed poll whose deliveries all ended before they were read is tried again. */
const REPLAY_TRIES = 3;

/** Each statement's text by limit, built once (the prepared statement is named by the limit too). */
const plain = new Map<number, string>();
const forPoll = new Map<number, string>();
const textOf = (texts: Map<number, string>, limit: number, build: (limit: number) => string) => {
  const known = texts.get(limit);
  if (known !== undefined) return known;
  const text = build(limit);
  texts.set(limit, text);
  return text;
};

export function claimOps(db: Db): ClaimOps {
  return {
    async claimEvents({ agentId, limit, leaseMs, maxAttempts, now, pollId }) {
      // The limit becomes statement text and a statement name: only a small integer may.
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new RangeError(`claim limit ${limit}`);
      for (let tries = 0; ; tries++) {
        const start = db.floors.start(agentId, now);
        const params = [agentId, now, leaseMs, maxAttempts, start.from];
        const rows =
          pollId === undefined
            ? await db.query(textOf(plain, limit, claimSql), params, `cap_claim_${limit}`)
            : await db.query(
                textOf(forPoll, limit, pollClaimSql),
                [...params, pollId],
                `cap_poll_claim_${limit}`,
              );
        const floor = rows[0]?.floor;
        if (floor !== null && floor !== undefined) db.floors.learn(agentId, start, Number(floor));
        if (rows[0]?.replay === true) {
          // Read apart: rows the statement did not see (claimed after its snapshot) may be among them.
          const held = await db.query(POLL_DELIVERIES, [agentId, pollId, now], "cap_poll_deliveries");
          if (held.length > 0 || tries + 1 >= REPLAY_TRIES)
            return { events: held.map(toDeliveredEvent), expiredLeases: 0, newlyFailed: 0 };
          continue; // they all ended meanwhile: the poll is a fresh one now
        }
        const retired = Number(rows[0]?.n_retired ?? 0);
        const claimed = rows.filter((r) => r.id !== null);
        const reclaimed = claimed.filter((r) => r.prev_state === "leased").length;
        return {
          events: claimed.map(toDeliveredEvent),
          expiredLeases: retired + reclaimed,
          newlyFailed: retired,
        };
      }
    },
  };
}
