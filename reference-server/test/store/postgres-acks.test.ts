/**
 * The PostgreSQL ack write and its batcher (src/store/postgres/events/settle.ts, src/store/postgres/ack-batcher.ts) on a real PostgreSQL: calls that
 * arrive together share one statement and each gets its own answer (first ack wins, foreign and unknown
 * ids not found); a call that arrives while a statement runs goes in the next one; a shared statement that
 * fails is written again call by call, an outage fails every call. Statements are counted, and faults
 * injected, by a Db that wraps the real one.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/store/contract.js";
import { ackBatcher, type HeldConnection } from "../../src/store/postgres/ack-batcher.js";
import { claimFloors } from "../../src/store/postgres/claim-floors.js";
import { type Db, type Row, runQuery } from "../../src/store/postgres/db.js";
import { type AckCall, writeAcks } from "../../src/store/postgres/events/settle.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { quoteIdent } from "../../src/store/postgres/migrate.js";
import { events, T0 } from "./contract-fixtures.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

const call = (agentId: string, ids: string[], result: unknown = null, now = T0 + 500): AckCall => ({
  agentId,
  items: ids.map((eventId) => ({ eventId, result })),
  now,
});

describe.skipIf(!url)(`postgres acks${skipped}`, () => {
  const schema = `cap_acks_${randomBytes(5).toString("hex")}`;
  let store: PostgresStore;
  let pool: pg.Pool;
  /** Statements the batcher ran (the ack write, and the owner look-up of items it did not change). */
  const ran: string[] = [];
  /** The next ack writes fail with these errors, in order, instead of running. */
  let faults: Error[] = [];
  let db: Db;
  /** The connections the batcher held and how each was given back (`ok`, or the error's message). */
  let holds: string[] = [];
  const held = async (): Promise<HeldConnection> => {
    const n = holds.push("held") - 1;
    return {
      db,
      release: (err) => {
        holds[n] = err ? err.message : "ok";
      },
    };
  };

  beforeAll(async () => {
    store = await openPostgresStore({ url: url!, schema });
    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${quoteIdent(schema)}`, max: 2 });
    db = {
      channel: "unused",
      origin: "unused|",
      floors: claimFloors(),
      wake: () => undefined,
      cancelled: () => undefined,
      authChanged: async () => undefined,
      async query<R extends Row>(text: string, values?: unknown[], name?: string) {
        ran.push(name ?? text);
        const error = /UPDATE events/.test(text) ? faults.shift() : undefined;
        if (error) throw error;
        return runQuery<R>(pool, text, values, name);
      },
    };
  });
  afterAll(async () => {
    await pool?.end();
    await store?.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await c.end();
  });

  /** n events of a fresh agent, claimed (leased) so that they can be acked. */
  const leased = async (agentId: string, n: number) => {
    const evs = events(agentId, "pod_acks", n);
    await store.enqueueEvents(evs);
    await store.claimEvents({ agentId, limit: n, leaseMs: 60_000, maxAttempts: 5, now: T0 });
    return evs.map((e) => e.id);
  };
  const stateOf = async (id: string) => {
    const e = await store.getEvent(id);
    return { state: e?.state, result: e?.result, ackedAt: e?.ackedAt };
  };

  it.each([
    {
      name: "two agents' acks, each its own event",
      given: (a: string[], b: string[]) => [call("agt_a", [a[0]!]), call("agt_b", [b[0]!])],
      want: [[true], [true]],
    },
    {
      name: "a foreign id and an unknown id beside an own one",
      given: (a: string[], b: string[]) => [call("agt_a", [b[0]!, "evt_nope", a[0]!])],
      want: [[false, false, true]],
    },
    {
      name: "the same event twice in one call and again in another",
      given: (a: string[]) => [call("agt_a", [a[0]!, a[0]!]), call("agt_a", [a[0]!])],
      want: [[true, true], [true]],
    },
    {
      name: "a call with no items beside one with items",
      given: (a: string[]) => [call("agt_a", []), call("agt_a", [a[1]!])],
      want: [[], [true]],
    },
  ])("writeAcks answers per call and item: $name", async ({ given, want }) => {
    const a = await leased("agt_a", 2);
    const b = await leased("agt_b", 1);
    expect(await writeAcks(db, given(a, b))).toEqual(want);
  });

  it("takes ids and results that JSON.parse lets through (a lone surrogate, U+0000) without a fault", async () => {
    const [id] = await leased("agt_odd", 1);
    const result = { lone: "\ud800x", nul: "a\u0000b", pair: "\ud83d\ude00" };
    expect(
      await writeAcks(db, [call("agt_odd", ["evt_\udc00", "evt_\u0000"]), call("agt_odd", [id!], result)]),
    ).toEqual([[false, false], [true]]);
    expect((await stateOf(id!)).result).toEqual(result);
  });

  it("keeps the first ack's result when one event is acked by several calls of one statement", async () => {
    const [id] = await leased("agt_first", 1);
    const ack = ackBatcher(held);
    const answers = await Promise.all([
      ack(call("agt_first", [id!], { n: 1 }, T0 + 1)),
      ack(call("agt_first", [id!], { n: 2 }, T0 + 2)),
      ack(call("agt_other", [id!], { n: 3 }, T0 + 3)),
    ]);
    expect(answers).toEqual([[true], [true], [false]]);
    expect(await stateOf(id!)).toEqual({ state: "acked", result: { n: 1 }, ackedAt: T0 + 1 });
  });

  it("writes the calls of one event-loop turn in one statement", async () => {
    const ids = await leased("agt_turn", 6);
    const ack = ackBatcher(held);
    ran.length = 0;
    const answers = await Promise.all([
      ...ids.slice(0, 4).map((id) => ack(call("agt_turn", [id]))),
      ack(call("agt_turn", ids.slice(4))),
    ]);
    expect(answers).toEqual([[true], [true], [true], [true], [true, true]]);
    expect(ran).toEqual(["cap_ack_rows"]);
    for (const id of ids) expect((await stateOf(id)).state).toBe("acked");
  });

  it("puts a call that arrives while a statement runs into the next statement, answered after it", async () => {
    const ids = await leased("agt_wave", 3);
    const ack = ackBatcher(held);
    ran.length = 0;
    const first = ack(call("agt_wave", [ids[0]!]));
    // The first statement starts in this turn's check phase; these two arrive while it runs.
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(["cap_ack_rows"]);
    const later = [ack(call("agt_wave", [ids[1]!])), ack(call("agt_wave", [ids[2]!]))];
    expect(await Promise.all([first, ...later])).toEqual([[true], [true], [true]]);
    expect(ran).toEqual(["cap_ack_rows", "cap_ack_rows"]);
  });

  it("sends the next statement before it answers the calls of the one before, on one held connection", async () => {
    const ids = await leased("agt_pipe", 3);
    const ack = ackBatcher(held);
    ran.length = 0;
    holds = [];
    const first = ack(call("agt_pipe", [ids[0]!])).then((r) => {
      ran.push("answered first");
      return r;
    });
    await new Promise((r) => setImmediate(r));
    const later = [ack(call("agt_pipe", [ids[1]!])), ack(call("agt_pipe", [ids[2]!]))];
    expect(await Promise.all([first, ...later])).toEqual([[true], [true], [true]]);
    expect(ran).toEqual(["cap_ack_rows", "cap_ack_rows", "answered first"]);
    // One connection for both statements, given back once the queue was empty.
    expect(holds).toEqual(["ok"]);
  });

  it("writes each call alone when the shared statement fails, and only the failing call fails", async () => {
    const ids = await leased("agt_fault", 3);
    const ack = ackBatcher(held);
    ran.length = 0;
    // The shared statement fails (as a deadlock with another replica's batch ack would), then the first
    // call's own statement fails too; the other two calls are written on their own and succeed.
    const deadlock = () => Object.assign(new Error("deadlock detected"), { code: "40P01" });
    faults = [deadlock(), deadlock()];
    const settled = await Promise.allSettled([
      ack(call("agt_fault", [ids[0]!])),
      ack(call("agt_fault", [ids[1]!])),
      ack(call("agt_fault", [ids[2]!])),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(settled.slice(1).map((s) => (s as PromiseFulfilledResult<boolean[]>).value)).toEqual([
      [true],
      [true],
    ]);
    expect(ran).toEqual(["cap_ack_rows", "cap_ack_rows", "cap_ack_rows", "cap_ack_rows"]);
    expect((await stateOf(ids[0]!)).state).toBe("leased");
    expect((await stateOf(ids[1]!)).state).toBe("acked");
    expect((await stateOf(ids[2]!)).state).toBe("acked");
  });

  it("fails every call of a statement that met an outage, and writes none of them", async () => {
    const ids = await leased("agt_outage", 2);
    const ack = ackBatcher(held);
    ran.length = 0;
    holds = [];
    faults = [new StoreUnavailableError(new Error("ECONNREFUSED"))];
    const settled = await Promise.allSettled([
      ack(call("agt_outage", [ids[0]!])),
      ack(call("agt_outage", [ids[1]!])),
    ]);
    for (const s of settled) {
      expect(s.status).toBe("rejected");
      expect((s as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    expect(ran).toEqual(["cap_ack_rows"]);
    for (const id of ids) expect((await stateOf(id)).state).toBe("leased");
    // The connection that met the outage is given back with the error (closed, not reused).
    expect(holds).toEqual(["store unavailable: ECONNREFUSED"]);
    // The batcher is not stuck: the next call is written, on a fresh connection.
    expect(await ack(call("agt_outage", ids))).toEqual([true, true]);
    expect(holds).toEqual(["store unavailable: ECONNREFUSED", "ok"]);
  });

  it("fails the calls it cannot get a connection for, and gets one for the next calls", async () => {
    const ids = await leased("agt_noconn", 2);
    let refuse = true;
    const ack = ackBatcher(async () => {
      if (refuse) {
        refuse = false;
        throw new StoreUnavailableError(new Error("ECONNREFUSED"));
      }
      return held();
    });
    holds = [];
    const settled = await Promise.allSettled([ack(call("agt_noconn", [ids[0]!]))]);
    expect(settled[0]?.status).toBe("rejected");
    expect((settled[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    expect((await stateOf(ids[0]!)).state).toBe("leased");
    expect(await ack(call("agt_noconn", ids))).toEqual([true, true]);
    expect(holds).toEqual(["ok"]);
  });
});
