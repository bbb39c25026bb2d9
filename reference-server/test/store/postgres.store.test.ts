/**
 * What the PostgreSQL store must do beyond the shared contract: several stores on one database (as several
 * kernel replicas would open them) migrate once, never claim one event twice, and wake each other through
 * LISTEN/NOTIFY — also after the LISTEN connection is killed; the claim walks the ready index in order.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FLOOR_MAX_AGE_MS } from "../../src/store/postgres/claim-floors.js";
import { claimSql } from "../../src/store/postgres/events/claim.js";
import { READY_INSTANTS_SQL } from "../../src/store/postgres/events/reads.js";
import { ACK_ROWS } from "../../src/store/postgres/events/settle.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { loadMigrations } from "../../src/store/postgres/migrate.js";
import { eventually } from "../../src/testing/deadline.js";
import { aMessage, events, onReady, T0 } from "./contract-fixtures.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

describe.skipIf(!url)(`postgres store specifics${skipped}`, () => {
  const schemas: string[] = [];
  const open: PostgresStore[] = [];
  const admin = () => {
    const c = new pg.Client({ connectionString: url });
    return c.connect().then(() => c);
  };
  const freshSchema = () => {
    const s = `cap_pg_${randomBytes(5).toString("hex")}`;
    schemas.push(s);
    return s;
  };
  const openStore = async (schema: string, poolSize = 10) => {
    const s = await openPostgresStore({ url: url!, schema, poolSize });
    open.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    const c = await admin();
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await c.end();
  });

  it("applies migrations once when several replicas start at the same moment", async () => {
    const schema = freshSchema();
    await Promise.all(Array.from({ length: 4 }, () => openStore(schema, 2)));
    const c = await admin();
    const rows = (await c.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`)).rows;
    await c.end();
    expect(rows.map((r) => r.version)).toEqual(loadMigrations().map((m) => m.version));
  });

  it("takes its schema from ?schema= on the URL when no option names one", async () => {
    const schema = freshSchema();
    const s = await openPostgresStore({ url: `${url}?schema=${schema}` });
    open.push(s);
    expect(s.schema).toBe(schema);
    await s.insertPod({ id: "pod_s", name: "s", createdBy: "usr_s", createdAt: T0 });
    const c = await admin();
    const rows = (await c.query(`SELECT id FROM "${schema}".pods`)).rows;
    await c.end();
    expect(rows).toEqual([{ id: "pod_s" }]);
  });

  it("refuses to start on a schema whose applied migration was edited", async () => {
    const schema = freshSchema();
    await (await openStore(schema)).close();
    open.length = 0;
    const c = await admin();
    await c.query(`UPDATE "${schema}".schema_migrations SET checksum = 'edited' WHERE version = 1`);
    await c.end();
    await expect(openPostgresStore({ url: url!, schema })).rejects.toThrow(/changed after it was applied/);
  });

  it("never gives one event to two claimers on two stores, and gives every event out", async () => {
    const schema = freshSchema();
    const [a, b] = [await openStore(schema, 8), await openStore(schema, 8)];
    const total = 1500;
    for (let i = 0; i < total; i += 500) await a.enqueueEvents(events("agt_a", "pod_a", 500, T0 + i));
    const seen = new Map<string, number>();
    const claimer = async (s: PostgresStore) => {
      for (;;) {
        const r = await s.claimEvents({
          agentId: "agt_a",
          limit: 7,
          leaseMs: 60_000,
          maxAttempts: 5,
          now: T0,
        });
        if (r.events.length === 0) return;
        for (const e of r.events) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, i) => claimer(i % 2 ? a : b)));
    expect(seen.size).toBe(total);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(await a.queueStats()).toEqual({ pending: 0, leased: total, acked: 0, failed: 0, cancelled: 0 });
  });

  it("claims pending events in index order without sorting them", async () => {
    const schema = freshSchema();
    const s = await openStore(schema);
    for (let agent = 0; agent < 20; agent++) await s.enqueueEvents(events(`agt_${agent}`, "pod_a", 200));
    const c = await admin();
    await c.query(`SET search_path TO "${schema}"`);
    await c.query("ANALYZE events");
    const plan = (
      await c.query(
        `EXPLAIN SELECT id FROM events WHERE agent_id = 'agt_3' AND state = 'pending' AND seq >= 0
         ORDER BY seq LIMIT 20 FOR UPDATE SKIP LOCKED`,
      )
    ).rows
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    await c.end();
    expect(plan).toContain("events_pending");
    expect(plan).not.toMatch(/\bSort\b/);
  });

  // A prepared statement settles on PostgreSQL's generic plan only when that plan costs about what the
  // custom ones do; otherwise every execution is planned anew (0.6–0.8 ms per claim). With the limit a
  // parameter, the claim's generic plan joined the ready rows to a sequential scan of every event.
  it("claims with a generic plan PostgreSQL keeps, which reads the indexes", async () => {
    const schema = freshSchema();
    await openStore(schema);
    const c = await admin();
    await c.query(`SET search_path TO "${schema}"`);
    // 50,000 pending events of 20 agents, the size of the bench's drain, written in one statement.
    await c.query(
      `WITH ins AS (
         INSERT INTO events (id, agent_id, pod_id, type, created_at, state, attempts)
         SELECT 'evt_plan' || n, 'agt_' || (n % 20), 'pod_a', 'message.posted', 0, 'pending', 0
           FROM generate_series(1, 50000) n RETURNING seq)
       INSERT INTO event_payloads (seq, payload) SELECT seq, '{}'::json FROM ins`,
    );
    await c.query("ANALYZE events");
    await c.query(`PREPARE claim_under_test AS ${claimSql(50)}`);
    for (let i = 0; i < 8; i++) await c.query(`EXECUTE claim_under_test('agt_${i}', 5, 60000, 5, 0)`);
    const [use] = (
      await c.query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'claim_under_test'",
      )
    ).rows;
    await c.query("SET plan_cache_mode = force_generic_plan");
    const plan = (await c.query("EXPLAIN EXECUTE claim_under_test('agt_9', 5, 60000, 5, 0)")).rows
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    await c.end();
    expect(Number(use.generic_plans)).toBeGreaterThan(0);
    // The agent's claim floor bounds the index scan, not a filter after it (claim-floors.ts).
    expect(plan).toMatch(/Index Cond: \(\(agent_id = \$1\) AND \(seq >= \$\d+\)\)/);
    expect(plan).toMatch(/Index Scan using events_pending on events/);
    expect(plan).toMatch(/Index Scan using events_leased on events/);
    expect(plan).not.toMatch(/Seq Scan on events/);
  });

  // The ack's generic plan, which a connection keeps until the next ANALYZE, must look events up by id at
  // any size: joined to json_to_recordset alone it hashed a sequential scan of every open event up to some
  // 20,000 rows, so a table that grew after the plan was made was read whole by every ack.
  it.each([5_000, 20_000])("acks with a generic plan that looks events up by id (%i events)", async (n) => {
    const schema = freshSchema();
    await openStore(schema);
    const c = await admin();
    await c.query(`SET search_path TO "${schema}"`);
    await c.query(
      `INSERT INTO events (id, agent_id, pod_id, type, created_at, state, attempts, lease_expires_at)
       SELECT 'evt_ack' || n, 'agt_' || (n % 8), 'pod_a', 'message.posted', 0,
              CASE WHEN n % 3 = 0 THEN 'acked' ELSE 'leased' END, 1, 60000
         FROM generate_series(1, $1::int) n`,
      [n],
    );
    await c.query("ANALYZE events");
    await c.query(`PREPARE ack_under_test AS ${ACK_ROWS}`);
    const items = (i: number) => JSON.stringify([{ a: `agt_${i % 8}`, i: `evt_ack${i}`, r: null, n: 1 }]);
    for (let i = 1; i <= 8; i++) await c.query(`EXECUTE ack_under_test('${items(i)}')`);
    const [use] = (
      await c.query("SELECT generic_plans FROM pg_prepared_statements WHERE name = 'ack_under_test'")
    ).rows;
    await c.query("SET plan_cache_mode = force_generic_plan");
    const plan = (await c.query(`EXPLAIN EXECUTE ack_under_test('${items(10)}')`)).rows
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    const acked = await c.query("SELECT count(*)::int AS n FROM events WHERE acked_at = 1");
    await c.end();
    expect(acked.rows[0].n).toBe(6); // evt_ack1 … evt_ack8 but 3 and 6, which were acked already
    expect(Number(use.generic_plans)).toBeGreaterThan(0);
    expect(plan).toMatch(/Index Scan (using|on) events_pkey\b/); // a plain or a bitmap index scan
    expect(plan).not.toMatch(/Seq Scan on events/);
  });

  // The wake hub's backstop asks for every waiting agent; an agent with nothing pending must not cost a
  // read of the whole table (as EXISTS, PostgreSQL chose a sequential scan for it).
  it("reads ready instants through the indexes, also for agents with nothing pending", async () => {
    const schema = freshSchema();
    const s = await openStore(schema);
    for (let agent = 0; agent < 20; agent++) await s.enqueueEvents(events(`agt_${agent}`, "pod_a", 200));
    await s.claimEvents({ agentId: "agt_1", limit: 100, leaseMs: 1000, maxAttempts: 5, now: T0 });
    await s.claimEvents({ agentId: "agt_1", limit: 100, leaseMs: 1000, maxAttempts: 5, now: T0 + 1 });
    const c = await admin();
    await c.query(`SET search_path TO "${schema}"`);
    await c.query("ANALYZE events");
    await c.query(`PREPARE ready_under_test AS ${READY_INSTANTS_SQL}`);
    const plan = (
      await c.query(
        "EXPLAIN ANALYZE EXECUTE ready_under_test(ARRAY['agt_1', 'agt_none', 'agt_2', 'agt_1'], 5)",
      )
    ).rows
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    const found = (await c.query("EXECUTE ready_under_test(ARRAY['agt_1', 'agt_none', 'agt_2', 'agt_1'], 5)"))
      .rows;
    await c.end();
    expect(plan).toMatch(
      /Index Only Scan using events_pending on events|Index Scan using events_pending on events/,
    );
    expect(plan).toMatch(/Index Scan using events_leased on events/);
    expect(plan).not.toMatch(/Seq Scan on events/);
    expect(found.map((r) => [r.agent_id, r.at === null ? null : Number(r.at)]).sort()).toEqual([
      ["agt_1", T0 + 1000],
      ["agt_2", 0],
      ["agt_none", null],
    ]);
    expect(
      (await s.readyInstants({ agentIds: ["agt_1", "agt_none", "agt_2"], now: T0, maxAttempts: 5 }))
        .map((r) => [r.agentId, r.at])
        .sort(),
    ).toEqual([
      ["agt_1", T0 + 1000],
      ["agt_2", 0],
    ]);
  });

  // Claims start at the agent's floor (claim-floors.ts); every path that can put an open event below it
  // must make the next claim read from the start.
  it("finds an event opened below the claim floor: requeued on another replica, or with its wake-up missed", async () => {
    const schema = freshSchema();
    const [a, b] = [await openStore(schema), await openStore(schema)];
    const claim = (s: PostgresStore, now = T0) =>
      s.claimEvents({ agentId: "agt_f", limit: 50, leaseMs: 60_000, maxAttempts: 5, now });
    const [old] = events("agt_f", "pod_old", 1);
    await a.enqueueEvents([old!]);
    await a.failOpenEvents({ agentId: "agt_f", podId: "pod_old", now: T0, reason: "test" });
    const later = events("agt_f", "pod_a", 120);
    await a.enqueueEvents(later);
    const first = await claim(a); // learns a floor above `old`, which is failed
    await a.ackEvents({
      agentId: "agt_f",
      items: first.events.map((e) => ({ eventId: e.id, result: null })),
      now: T0,
    });
    const second = await claim(a);
    expect(second.events.map((e) => e.id)).toEqual(later.slice(50, 100).map((e) => e.id));

    // Another replica requeues the old event: its NOTIFY drops the floor here.
    const heard: string[] = [];
    onReady(a, (id) => heard.push(id));
    expect((await b.requeueEvent({ eventId: old!.id, now: T0 })).status).toBe("requeued");
    await eventually(() => heard.includes("agt_f"), "agt_f is heard");
    const third = (await claim(a)).events.map((e) => e.id);
    expect(third).toEqual([old!.id, ...later.slice(100).map((e) => e.id)]);
    await a.ackEvents({
      agentId: "agt_f",
      items: third.map((eventId) => ({ eventId, result: null })),
      now: T0,
    });
    const tail = events("agt_f", "pod_a", 5);
    await a.enqueueEvents(tail);
    expect((await claim(a)).events.map((e) => e.id)).toEqual(tail.map((e) => e.id)); // floor: tail[0]

    // An acked event made pending again by a write whose wake-up never came (no NOTIFY): the floor hides
    // it from the next claim, the backstop's readyInstants finds it and drops the floor, and it is claimed.
    const c = await admin();
    await c.query(
      `UPDATE "${schema}".events SET state = 'pending', acked_at = NULL, result = NULL, attempt_base = attempts
        WHERE id = $1`,
      [first.events[0]!.id],
    );
    await c.end();
    expect((await claim(a)).events).toEqual([]);
    expect(await a.readyInstants({ agentIds: ["agt_f"], now: T0, maxAttempts: 5 })).toEqual([
      { agentId: "agt_f", at: 0 },
    ]);
    expect((await claim(a)).events.map((e) => e.id)).toEqual([first.events[0]!.id]);
  });

  it("uses a claim floor for a few seconds at most", async () => {
    const schema = freshSchema();
    const s = await openStore(schema);
    const claim = (now: number) =>
      s.claimEvents({ agentId: "agt_t", limit: 10, leaseMs: 60_000, maxAttempts: 5, now });
    const queued = events("agt_t", "pod_a", 20);
    await s.enqueueEvents(queued);
    const first = await claim(T0);
    await s.ackEvents({
      agentId: "agt_t",
      items: first.events.map((e) => ({ eventId: e.id, result: null })),
      now: T0,
    });
    await claim(T0); // the floor is now at the second ten
    const c = await admin();
    await c.query(`UPDATE "${schema}".events SET state = 'pending', acked_at = NULL WHERE id = $1`, [
      queued[0]!.id,
    ]);
    await c.end();
    // Claims without pause keep the age of the claim that read from the start (T0).
    expect((await claim(T0 + 1000)).events).toEqual([]);
    expect((await claim(T0 + FLOOR_MAX_AGE_MS)).events).toEqual([]);
    expect((await claim(T0 + FLOOR_MAX_AGE_MS + 1)).events.map((e) => e.id)).toEqual([queued[0]!.id]);
  });

  it("wakes the other store's listeners through NOTIFY, and its own once, only after commit", async () => {
    const schema = freshSchema();
    const [a, b] = [await openStore(schema), await openStore(schema)];
    const seenA: string[] = [];
    const seenB: string[] = [];
    onReady(a, (id) => seenA.push(id));
    onReady(b, (id) => seenB.push(id));
    let inside = -1;
    await a.transaction(async (tx) => {
      await tx.enqueueEvents(events("agt_x", "pod_a", 3));
      await new Promise((r) => setTimeout(r, 50));
      inside = seenA.length + seenB.length;
    });
    expect(inside).toBe(0);
    await eventually(() => seenB.includes("agt_x"), "store B hears agt_x");
    expect(seenA).toEqual(["agt_x"]);
    await b.enqueueEvents(events("agt_y", "pod_a", 1));
    await eventually(() => seenA.includes("agt_y"), "store A hears agt_y");
    expect(seenB.filter((x) => x === "agt_y")).toEqual(["agt_y"]);
  });

  it("does not wake stores on another schema", async () => {
    const [a, b] = [await openStore(freshSchema()), await openStore(freshSchema())];
    const seenB: string[] = [];
    onReady(b, (id) => seenB.push(id));
    await a.enqueueEvents(events("agt_other", "pod_a", 1));
    await b.enqueueEvents(events("agt_marker", "pod_a", 1));
    const c = await openStore(b.schema);
    const seenC: string[] = [];
    onReady(c, (id) => seenC.push(id));
    await b.enqueueEvents(events("agt_marker2", "pod_a", 1));
    await eventually(() => seenC.includes("agt_marker2"), "store C hears agt_marker2");
    expect(seenB).not.toContain("agt_other");
  });

  it("reconnects its LISTEN connection after the server kills it and hears other replicas again", async () => {
    const schema = freshSchema();
    const [a, b] = [await openStore(schema), await openStore(schema)];
    const seen: string[] = [];
    onReady(b, (id) => seen.push(id));
    const pid = b.listener.backendPid;
    expect(pid).not.toBeNull();
    const c = await admin();
    await c.query("SELECT pg_terminate_backend($1)", [pid]);
    await c.end();
    await eventually(
      () => b.listener.backendPid !== null && b.listener.backendPid !== pid,
      "the listener has reconnected",
    );
    await a.enqueueEvents(events("agt_after", "pod_a", 1));
    await eventually(() => seen.includes("agt_after"), "agt_after is heard after the reconnect");
  });

  it("serialises read-modify-write of one agent's memory across two stores", async () => {
    const schema = freshSchema();
    const stores = [await openStore(schema), await openStore(schema)];
    const bump = (s: PostgresStore) =>
      s.transaction(async (tx) => {
        const cur = await tx.getMemoryForUpdate("agt_m");
        await tx.putMemory({
          agentId: "agt_m",
          content: String(Number(cur?.content ?? "0") + 1),
          sections: {},
          sourceRuntime: null,
          syncKey: null,
          updatedAt: T0,
        });
      });
    await Promise.all(Array.from({ length: 20 }, (_, i) => bump(stores[i % 2]!)));
    expect((await stores[0]!.getMemory("agt_m"))?.content).toBe("20");
  });

  it("returns JSON values verbatim, key order included, and epoch-ms times as numbers", async () => {
    const s = await openStore(freshSchema());
    const payload = { z: 1, a: { y: [3, 2, 1], b: "x" }, big: 1.5, s: "ü\u0000" };
    await s.enqueueEvents([
      { id: "evt_j", agentId: "agt_j", podId: "pod_j", type: "t", payload, createdAt: T0 },
    ]);
    const ev = await s.getEvent("evt_j");
    expect(JSON.stringify(ev?.payload)).toBe(JSON.stringify(payload));
    expect(typeof ev?.createdAt).toBe("number");
    expect(ev?.createdAt).toBe(T0);
  });

  it("stores and finds strings holding U+0000 and U+FFFF exactly, which PostgreSQL text cannot hold as is", async () => {
    const s = await openStore(freshSchema());
    const odd = ["a\u0000b", "\uFFFF0", "\uFFFF\u0000\uFFFF", "\u0000", "plain"];
    for (const [i, name] of odd.entries()) {
      await s.insertUser({ id: `usr_${i}\u0000`, name, isAdmin: false, createdAt: T0, deletedAt: null });
    }
    for (const [i, name] of odd.entries()) {
      expect((await s.findUsersByName(name)).map((u) => u.id)).toEqual([`usr_${i}\u0000`]);
      expect((await s.getUser(`usr_${i}\u0000`))?.name).toBe(name);
    }
    expect(await s.getUser("usr_0")).toBeNull();
    const message = {
      ...aMessage("pod_\u0000"),
      content: "x\u0000y\uFFFF0",
      metadata: { k: "\u0000\uFFFF0" },
    };
    await s.insertMessage(message);
    expect(await s.listMessages({ podId: "pod_\u0000", limit: 5 })).toEqual([message]);
    await s.enqueueEvents([
      {
        id: "evt_\u0000",
        agentId: "agt_\u0000",
        podId: "p",
        type: "t\u0000",
        payload: "\uFFFF0",
        createdAt: T0,
      },
    ]);
    const claimed = await s.claimEvents({
      agentId: "agt_\u0000",
      limit: 5,
      leaseMs: 1000,
      maxAttempts: 5,
      now: T0,
    });
    expect(claimed.events.map((e) => [e.id, e.type, JSON.parse(e.payloadJson)])).toEqual([
      ["evt_\u0000", "t\u0000", "\uFFFF0"],
    ]);
    expect(await s.ackEvent({ agentId: "agt_\u0000", eventId: "evt_", now: T0, result: null })).toBe(false);
  });

  it("rejects a transaction whose function swallowed a failed statement, since nothing was committed", async () => {
    const s = await openStore(freshSchema());
    const user = { id: "usr_dup", name: "d", isAdmin: false, createdAt: T0, deletedAt: null };
    await s.insertUser(user);
    await expect(
      s.transaction(async (tx) => {
        await tx.insertPod({ id: "pod_lost", name: "lost", createdBy: user.id, createdAt: T0 });
        await tx.insertUser(user).catch(() => undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await s.getPod("pod_lost")).toBeNull();
  });

  it("refuses a transaction's operations once the transaction has settled", async () => {
    const s = await openStore(freshSchema());
    let leaked: Parameters<Parameters<PostgresStore["transaction"]>[0]>[0] | undefined;
    await s.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.getUser("usr_x")).rejects.toThrow(/transaction already finished/);
  });

  it("keeps event ids in collation C (byte order, as on SQLite), whatever the database locale", async () => {
    const schema = freshSchema();
    const s = await openStore(schema);
    const c = await admin();
    const cols = (
      await c.query(
        `SELECT column_name, collation_name FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'events' AND column_name IN ('id', 'agent_id', 'pod_id', 'poll_id')
          ORDER BY column_name`,
        [schema],
      )
    ).rows;
    await c.end();
    expect(cols).toEqual(
      ["agent_id", "id", "pod_id", "poll_id"].map((column_name) => ({ column_name, collation_name: "C" })),
    );
    // Lookups by id and agent still find each event.
    const evs = [...events("agt_B", "pod_c", 1), ...events("agt_a", "pod_c", 1)];
    await s.enqueueEvents(evs);
    for (const e of evs) expect((await s.getEvent(e.id))?.agentId).toBe(e.agentId);
  });

  it("answers ping while the server is up and fails to open against a closed port", async () => {
    const s = await openStore(freshSchema());
    await expect(s.ping()).resolves.toBeUndefined();
    const dead = new URL(url!);
    dead.port = "1";
    await expect(openPostgresStore({ url: dead.toString(), schema: "x" })).rejects.toThrow();
  });
});
