/**
 * The PostgreSQL claim of a poll named by `pollId` (events/claim.ts, pollClaimSql): one statement that
 * serialises polls with the same pollId across replicas — the later one answers the earlier one's
 * deliveries and claims nothing — and whose plan reads the indexes, as the plain claim's does.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { pollClaimSql } from "../../src/store/postgres/events/claim.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { events, T0 } from "./contract-fixtures.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

describe.skipIf(!url)(`postgres claim under a pollId${skipped}`, () => {
  const schemas: string[] = [];
  const open: PostgresStore[] = [];
  const admin = async (schema: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`SET search_path TO "${schema}"`);
    return c;
  };
  const openStore = async (schema: string) => {
    const s = await openPostgresStore({ url: url!, schema, poolSize: 4 });
    open.push(s);
    return s;
  };
  const freshSchema = () => {
    const s = `cap_pgpoll_${randomBytes(5).toString("hex")}`;
    schemas.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await c.end();
  });

  // The row locks of the claim do not serialise two polls with one pollId (each skips what the other
  // locked and claims the next events), nor would a lock taken inside the statement (its snapshot, from
  // before the wait, misses what the other committed): the statement reads the pollId's rows after its lock.
  it("lets only one of many polls with the same pollId on two replicas claim, the others answer its deliveries", async () => {
    const schema = freshSchema();
    const [a, b] = [await openStore(schema), await openStore(schema)];
    const rounds = 40;
    await a.enqueueEvents(events("agt_r", "pod_a", rounds * 3 + 5));
    const poll = (s: PostgresStore, pollId: string) =>
      s.claimEvents({ agentId: "agt_r", limit: 3, leaseMs: 60_000, maxAttempts: 5, now: T0, pollId });
    const claimed = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      const pollId = `race-${round}`;
      const answers = await Promise.all([a, b, a, b].map((s) => poll(s, pollId)));
      const first = answers[0]!.events.map((e) => [e.id, e.attempts, e.leaseExpiresAt]);
      expect(first).toHaveLength(3);
      for (const r of answers)
        expect(r.events.map((e) => [e.id, e.attempts, e.leaseExpiresAt])).toEqual(first);
      for (const e of answers[0]!.events) claimed.add(e.id);
    }
    expect(claimed.size).toBe(rounds * 3);
    expect(await a.queueStats()).toEqual({
      pending: 5,
      leased: rounds * 3,
      acked: 0,
      failed: 0,
      cancelled: 0,
    });
  });

  it("claims with a generic plan PostgreSQL keeps, which reads the indexes, and finds the pollId's rows among the agent's leases", async () => {
    const schema = freshSchema();
    await openStore(schema);
    const c = await admin(schema);
    try {
      await c.query(
        `WITH ins AS (
           INSERT INTO events (id, agent_id, pod_id, type, created_at, state, attempts)
           SELECT 'evt_plan' || n, 'agt_' || (n % 20), 'pod_a', 'message.posted', 0, 'pending', 0
             FROM generate_series(1, 50000) n RETURNING seq)
         INSERT INTO event_payloads (seq, payload) SELECT seq, '{}'::json FROM ins`,
      );
      await c.query("ANALYZE events");
      await c.query(`PREPARE poll_claim_under_test AS ${pollClaimSql(50)}`);
      for (let i = 0; i < 8; i++)
        await c.query(`EXECUTE poll_claim_under_test('agt_${i}', 5, 60000, 5, 0, 'poll-${i}')`);
      const [use] = (
        await c.query("SELECT generic_plans FROM pg_prepared_statements WHERE name = 'poll_claim_under_test'")
      ).rows;
      await c.query("SET plan_cache_mode = force_generic_plan");
      const plan = (await c.query("EXPLAIN EXECUTE poll_claim_under_test('agt_9', 5, 60000, 5, 0, 'p')")).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
      expect(Number(use.generic_plans)).toBeGreaterThan(0);
      expect(plan).toMatch(/Index Cond: \(\(agent_id = \$1\) AND \(seq >= \$\d+\)\)/);
      expect(plan).toMatch(/Index Scan using events_pending on events/);
      expect(plan).toMatch(/Index Scan using events_leased on events/);
      expect(plan).not.toMatch(/Seq Scan on events/);
      // The function's own read (not in the statement's plan): one scan of events_leased (the agent's
      // running leases), never of the table. On a connection of its own, whose statistics hold nothing else.
      const fresh = await admin(schema);
      try {
        await fresh.query("BEGIN");
        await fresh.query("SELECT count(*) FROM poll_tagged_rows('agt_1', 'poll-1', 5)");
        const scans = (
          await fresh.query(
            `SELECT pg_stat_get_xact_numscans('events_leased'::regclass)::int AS index_scans,
                    pg_stat_get_xact_numscans('events'::regclass)::int AS table_scans`,
          )
        ).rows[0];
        await fresh.query("COMMIT");
        expect(scans).toEqual({ index_scans: 1, table_scans: 0 });
      } finally {
        await fresh.end();
      }
    } finally {
      await c.end();
    }
  });
});
