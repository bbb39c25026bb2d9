/**
 * PostgreSQL retire: events leaving the queue as failed — exhausted leases (budget used, lease over) at
 * their lease end, and an uninstalled identity's open events of a pod with the given reason.
 *
 * Must never: retire a lease that still runs, wait on a row another statement holds (it is retiring,
 * claiming or acking it), or delete a failed event (it stays listed as a dead letter).
 */
import type { StoreOps } from "../../contract.js";
import type { Db } from "../db.js";
import { EXHAUSTED, FAIL, OPEN, RETIRE } from "../lease-rules.js";

type RetireOps = Pick<StoreOps, "failExhausted" | "failOpenEvents">;

const RETIRE_EXHAUSTED = `
  UPDATE events SET ${RETIRE}
   WHERE id IN (SELECT id FROM events
                 WHERE ($3::text IS NULL OR agent_id = $3) AND ${EXHAUSTED("$1", "$2")}
                 FOR UPDATE SKIP LOCKED)
  RETURNING 1`;

export function retireOps(db: Db): RetireOps {
  return {
    async failExhausted({ now, maxAttempts, agentId }) {
      return (await db.query(RETIRE_EXHAUSTED, [now, maxAttempts, agentId ?? null])).length;
    },

    async failOpenEvents({ agentId, podId, now, reason }) {
      const rows = await db.query(
        `UPDATE events SET ${FAIL("$3", "$4")}
          WHERE agent_id = $1 AND pod_id = $2 AND ${OPEN} RETURNING 1`,
        [agentId, podId, now, reason],
      );
      return rows.length;
    },
  };
}
