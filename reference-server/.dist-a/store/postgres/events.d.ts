/**
 * Events, leases, attempts and dead letters on PostgreSQL (semantics: ../README.md).
 *
 * The claim is one statement (style.md, "Queues in SQL"): retire this agent's exhausted leases, then lock
 * up to `limit` of the agent's oldest pending rows in index order (`events_pending`: agent_id, seq WHERE
 * state = 'pending'), from its claim floor on (claim-floors.ts), and up to `limit` of its ended leases
 * with attempts left (`events_leased`), both with FOR UPDATE SKIP LOCKED, and lease the oldest `limit` of
 * them, counting the attempt. A row another claim has locked is skipped, and a row another claim leased
 * after our snapshot fails the re-check PostgreSQL applies to the locked row version, so two claims — in
 * one process or on two replicas — never return the same event.
 * Enqueue and requeue NOTIFY in the same statement (delivered on commit) and wake local listeners after.
 *
 * Must never: read the clock (every time is `now` from the service), or wait on a row lock inside a claim.
 */
import type { EventOpName, StoreOps } from "../contract.js";
import type { Db } from "./db.js";
type EventOps = Omit<Pick<StoreOps, EventOpName>, "ackEvent">;
export declare const claimSql: (limit: number) => string;
export declare const READY_INSTANTS_SQL = "\n  SELECT a.agent_id,\n         COALESCE((SELECT 0::bigint FROM events e\n                    WHERE e.agent_id = a.agent_id AND e.state = 'pending' ORDER BY e.seq LIMIT 1),\n                  (SELECT min(lease_expires_at) FROM events e\n                    WHERE e.agent_id = a.agent_id AND e.state = 'leased'\n                      AND e.attempts - e.attempt_base < $2)) AS at\n    FROM (SELECT DISTINCT unnest($1::text[]) AS agent_id) a";
export declare function eventOps(db: Db): EventOps;
export {};
