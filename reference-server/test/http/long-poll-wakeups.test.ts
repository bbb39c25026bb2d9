/**
 * What wakes a waiting long-poll, each source on its own: the shared backstop is set to a minute (or the
 * case is about it), so a poll that returns its event well before its own deadline was woken by the
 * source under test — an enqueue, its lease-expiry instant, a NOTIFY from another replica, the sweep after
 * the LISTEN connection comes back, or the backstop catching a NOTIFY that never came.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { buildApp, type KernelApp, serverTimeouts } from "../../src/http/app.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";

const WAIT_S = 10;
/** Returned with its event this long before its deadline: woken, not timed out. */
const EARLY_MS = 5000;
const QUIET = { longPollBackstopMs: 60_000 };

async function timedPoll(send: () => Promise<{ json(): { events: { id: string; attempts: number }[] } }>) {
  const started = Date.now();
  const events = (await send()).json().events;
  return { events, ms: Date.now() - started };
}

describe("a waiting long-poll (SQLite, one process)", () => {
  let w: World;
  afterEach(async () => {
    await w.app.close();
    await w.store.close();
  });

  it("is woken by an enqueue for its agent", async () => {
    w = await makeWorld({ config: QUIET });
    const waiting = timedPoll(() => w.cap(w.alpha.token, "GET", `/events?waitSeconds=${WAIT_S}`));
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    const { id } = (
      await w.adminApi("POST", "/admin/events", {
        agentName: "alpha",
        podId: w.podA.id,
        type: "task.assigned",
        payload: {},
      })
    ).json();
    const r = await waiting;
    expect(r.events.map((e) => e.id)).toEqual([id]);
    expect(r.ms).toBeLessThan(WAIT_S * 1000 - EARLY_MS);
  });

  it("is woken at the lease-expiry instant of its agent's event, once per process however many polls wait", async () => {
    w = await makeWorld({ config: { ...QUIET, leaseSeconds: 0.3 } });
    await w.kernel.operator.emitDirect({ agentName: "alpha", podId: w.podA.id, type: "t", payload: {} });
    const [first] = (await w.cap(w.alpha.token, "GET", "/events")).json().events;
    expect(first.attempts).toBe(1);
    // Three polls of the same agent wait; one instant in the scheduler covers them all.
    const polls = [0, 1, 2].map(() =>
      timedPoll(() => w.cap(w.alpha.token, "GET", `/events?waitSeconds=${WAIT_S}`)),
    );
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 3,
    );
    expect(w.kernel.hub.scheduledCount()).toBe(1);
    // Each lease end redelivers to the next waiting poll: attempts 2, 3, 4, each long before the deadline.
    const results = await Promise.all(polls);
    const got = results.flatMap((r) => r.events).sort((a, b) => a.attempts - b.attempts);
    expect(got.map((e) => [e.id, e.attempts])).toEqual([
      [first.id, 2],
      [first.id, 3],
      [first.id, 4],
    ]);
    for (const r of results) expect(r.ms).toBeLessThan(WAIT_S * 1000 - EARLY_MS);
  });

  it("keeps its connection through the longest wait: no server timeout below it", () => {
    // A waiting poll is a request in flight: only an idle-socket timeout could cut it, and there is none.
    // The keep-alive timeout (idle time between requests) is still longer than the longest wait, so a
    // driver whose client keeps its own idle timeout at the wait finds the connection open.
    const maxWaitMs = DEFAULT_CONFIG.maxWaitSeconds * 1000;
    const t = serverTimeouts(DEFAULT_CONFIG.limits);
    expect(t.keepAliveTimeout).toBeGreaterThan(maxWaitMs);
    expect(t.headersTimeout).toBeLessThanOrEqual(t.requestTimeout);
    return makeWorld().then((world) => {
      w = world;
      const s = w.app.server;
      expect(s.timeout).toBe(0); // no idle-socket timeout
      expect(s.keepAliveTimeout).toBe(t.keepAliveTimeout);
      expect(s.headersTimeout).toBe(t.headersTimeout);
      expect(s.requestTimeout).toBe(t.requestTimeout);
      expect(s.maxRequestsPerSocket ?? 0).toBe(0);
    });
  });
});

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

describe.skipIf(!url)(`a waiting long-poll on two PostgreSQL replicas${skipped}`, () => {
  const schemas: string[] = [];
  const open: { app: KernelApp; store: PostgresStore }[] = [];
  afterEach(async () => {
    for (const r of open.splice(0)) {
      await r.app.close();
      await r.store.close();
    }
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });

  /** Replica 1 is the test world (with its agents); replica 2 is a second kernel on the same schema. */
  async function twoReplicas(config: Record<string, number>) {
    const schema = `cap_wake_${randomBytes(5).toString("hex")}`;
    schemas.push(schema);
    const s1 = await openPostgresStore({ url: url!, schema });
    const w = await makeWorld({ store: s1, config });
    open.push({ app: w.app, store: s1 });
    const s2 = await openPostgresStore({ url: url!, schema });
    const r2 = await buildApp({ store: s2, config, logger: false });
    open.push({ app: r2, store: s2 });
    const pollOn2 = (token: string) =>
      timedPoll(() =>
        r2.inject({
          method: "GET",
          url: `/api/agents/runtime/events?waitSeconds=${WAIT_S}`,
          headers: { authorization: `Bearer ${token}` },
        }),
      );
    const parked = (n: number) =>
      eventually(
        async () => r2.kernel.hub.waiterCount(),
        (c) => c === n,
      );
    /** An event written without its NOTIFY: what replica 2 sees when a notification is lost. */
    const insertSilently = async (agentId: string, podId: string) => {
      const id = `evt_silent${randomBytes(6).toString("hex")}`;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(
          `WITH e AS (
             INSERT INTO "${schema}".events (id, agent_id, pod_id, type, created_at, state, attempts)
             VALUES ($1, $2, $3, 'task.assigned', $4, 'pending', 0) RETURNING seq)
           INSERT INTO "${schema}".event_payloads (seq, payload) SELECT seq, '{}' FROM e`,
          [id, agentId, podId, Date.now()],
        );
      } finally {
        await c.end();
      }
      return id;
    };
    return { w, r2, s2, pollOn2, parked, insertSilently };
  }

  it("wakes a poll on replica 2 when an event is enqueued through replica 1 (NOTIFY)", async () => {
    const { w, pollOn2, parked } = await twoReplicas(QUIET);
    const waiting = pollOn2(w.alpha.token);
    await parked(1);
    const { id } = await w.kernel.operator.emitDirect({
      agentName: "alpha",
      podId: w.podA.id,
      type: "t",
      payload: {},
    });
    const r = await waiting;
    expect(r.events.map((e) => e.id)).toEqual([id]);
    expect(r.ms).toBeLessThan(WAIT_S * 1000 - EARLY_MS);
  });

  it("wakes every waiting poll whose agent has work when the LISTEN connection comes back", async () => {
    const { w, s2, pollOn2, parked, insertSilently } = await twoReplicas(QUIET);
    const waiting = [pollOn2(w.alpha.token), pollOn2(w.beta.token)];
    await parked(2);
    const ids = [
      await insertSilently(w.alpha.agentId, w.podA.id),
      await insertSilently(w.beta.agentId, w.podA.id),
    ];
    const oldPid = s2.listener.backendPid;
    expect(oldPid).not.toBeNull();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend($1)", [oldPid]);
    await admin.end();
    const results = await Promise.all(waiting);
    expect(results.map((r) => r.events.map((e) => e.id))).toEqual([[ids[0]], [ids[1]]]);
    for (const r of results) expect(r.ms).toBeLessThan(WAIT_S * 1000 - EARLY_MS);
    expect(s2.listener.backendPid).not.toBe(oldPid);
  });

  it("catches a lost NOTIFY with the shared backstop", async () => {
    const { w, pollOn2, parked, insertSilently } = await twoReplicas({ longPollBackstopMs: 300 });
    const waiting = pollOn2(w.alpha.token);
    await parked(1);
    const id = await insertSilently(w.alpha.agentId, w.podA.id);
    const r = await waiting;
    expect(r.events.map((e) => e.id)).toEqual([id]);
    expect(r.ms).toBeLessThan(WAIT_S * 1000 - EARLY_MS);
  });

  it("wakes a poll on replica 2 at the end of a lease taken through replica 1 (found by the backstop)", async () => {
    const { w, pollOn2, parked } = await twoReplicas({ longPollBackstopMs: 300, leaseSeconds: 1 });
    await w.kernel.operator.emitDirect({ agentName: "alpha", podId: w.podA.id, type: "t", payload: {} });
    const [first] = (await w.cap(w.alpha.token, "GET", "/events")).json().events;
    const waiting = pollOn2(w.alpha.token);
    await parked(1);
    const r = await waiting;
    expect(r.events.map((e) => [e.id, e.attempts])).toEqual([[first.id, 2]]);
    expect(r.ms).toBeLessThan(WAIT_S * 1000 - EARLY_MS);
  });
});
