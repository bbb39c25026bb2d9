/**
 * SQLite retire: events leaving the queue as failed — an exhausted lease (its budget used, its lease
 * over) at its lease end, and an uninstalled identity's open events of a pod with the given reason.
 *
 * Must never: retire a lease that still runs, or delete a failed event (it stays listed as a dead letter).
 */
import { EXHAUSTED, FAIL, LEASED, PENDING, RETIRE } from "../lease-rules.js";
import type { SqliteContext, SyncOps } from "../types.js";

type RetireOps = Pick<SyncOps, "failExhausted" | "failOpenEvents">;

/** One agent's exhausted leases, read through events_leased (never the pending backlog); the claim runs it. */
export const RETIRE_AGENT_SQL = `UPDATE events INDEXED BY events_leased SET ${RETIRE}
       WHERE agent_id = @agentId AND ${EXHAUSTED("@now", "@maxAttempts")}`;

export function retireOps({ db }: SqliteContext): RetireOps {
  const q = {
    retireAgent: db.prepare(RETIRE_AGENT_SQL),
    retireAll: db.prepare(`UPDATE events SET ${RETIRE} WHERE ${EXHAUSTED("@now", "@maxAttempts")}`),
    // One statement per state, so that each reads its own partial index (an IN list matches neither).
    failPending: db.prepare(
      `UPDATE events INDEXED BY events_pending SET ${FAIL("@now", "@reason")}
       WHERE agent_id = @agentId AND ${PENDING} AND pod_id = @podId`,
    ),
    failLeased: db.prepare(
      `UPDATE events INDEXED BY events_leased SET ${FAIL("@now", "@reason")}
       WHERE agent_id = @agentId AND ${LEASED} AND pod_id = @podId`,
    ),
  };

  const failOpenTx = db.transaction(
    (input: Parameters<SyncOps["failOpenEvents"]>[0]): number =>
      q.failPending.run(input).changes + q.failLeased.run(input).changes,
  );

  return {
    failExhausted: ({ now, maxAttempts, agentId }) =>
      agentId === undefined
        ? q.retireAll.run({ now, maxAttempts }).changes
        : q.retireAgent.run({ agentId, now, maxAttempts }).changes,
    failOpenEvents: (input) => failOpenTx(input),
  };
}
