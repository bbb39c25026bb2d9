/**
 * Several `cap-kernel serve` processes on one PostgreSQL database behave as one kernel (issue 3, "Several
 * replicas"): a poll on either replica never returns an event another poll holds, an event posted through
 * replica 1 wakes a long-poll waiting on replica 2 (LISTEN/NOTIFY), and a token revoked through one
 * replica is refused by all. Real processes, real sockets, one throwaway database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ack,
  call,
  createDatabase,
  dropDatabase,
  emit,
  eventually,
  KernelProcess,
  PG_URL,
  type Provisioned,
  poll,
  provision,
  SKIP_REASON,
  stopAll,
} from "./harness.js";

describe.skipIf(!PG_URL)(`two cap-kernel replicas on one PostgreSQL${SKIP_REASON}`, () => {
  let db = "";
  let r1: KernelProcess;
  let r2: KernelProcess;
  let world: Provisioned;
  const human = () => world.users[0]!.token;
  const agent = (name: string) => world.agents.find((a) => a.name === name)!;

  beforeAll(async () => {
    db = await createDatabase("cap_replicas");
    world = await provision(db, [
      "--admin",
      "ops",
      "--pod",
      "lab",
      "--agent",
      "alpha@lab",
      "--agent",
      "beta@lab",
    ]);
    [r1, r2] = await Promise.all([
      KernelProcess.start(db, { leaseSeconds: 30 }),
      KernelProcess.start(db, { leaseSeconds: 30 }),
    ]);
  });
  afterAll(async () => {
    await stopAll();
    if (db) await dropDatabase(db);
  });

  it("hands each event to one poller while its lease runs, whichever replica is asked", async () => {
    const a = agent("alpha");
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push(await emit(i % 2 ? r1.url : r2.url, human(), { agentName: "alpha", podId: a.podId }));
    const got = await Promise.all(
      Array.from({ length: 8 }, (_, i) => poll(i % 2 ? r1.url : r2.url, a.token, 10, 0)),
    );
    const delivered = got.flat().map((e) => e.id);
    expect(new Set(delivered).size).toBe(delivered.length);
    // Whatever is left (if eight polls of ten did not cover all thirty) goes to the next polls, still once.
    for (;;) {
      const more = await poll(r2.url, a.token, 50, 0);
      if (more.length === 0) break;
      delivered.push(...more.map((e) => e.id));
    }
    expect(delivered.sort()).toEqual([...ids].sort());
    expect(await poll(r1.url, a.token, 50, 0)).toEqual([]);
    for (const id of ids) expect((await ack(r1.url, a.token, id)).status).toBe(200);
  });

  it("wakes a long-poll waiting on replica 2 when an event is posted through replica 1", async () => {
    const b = agent("beta");
    const waitSeconds = 20;
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      const waiting = poll(r2.url, b.token, 5, waitSeconds);
      const started = performance.now();
      await eventually(
        async () => (await r2.metric("cap_long_polls_waiting")) >= 1,
        "the long-poll to wait on replica 2",
      );
      const id = await emit(r1.url, human(), { agentName: "beta", podId: b.podId, payload: { round } });
      const posted = performance.now();
      const events = await waiting;
      const returned = performance.now();
      expect(events.map((e) => e.id)).toEqual([id]);
      // The wake-up, not the end of the wait, returned the poll.
      expect(returned - started).toBeLessThan((waitSeconds * 1000) / 2);
      latencies.push(returned - posted);
      expect((await ack(r2.url, b.token, id)).status).toBe(200);
    }
    console.info(
      `replica wake: emit 201 on replica 1 → long-poll return on replica 2, ms: ${latencies.map((l) => l.toFixed(1)).join(", ")}`,
    );
  });

  it("refuses a token on every replica once it is revoked through one", async () => {
    const a = agent("alpha");
    for (const r of [r1, r2])
      expect((await call(r.url, "GET", "/api/agents/runtime/events", a.token)).status).toBe(200);
    const revoke = await call(
      r1.url,
      "DELETE",
      `/api/registry/pods/${a.podId}/agents/${a.name}/runtime-tokens/${a.tokenId}`,
      human(),
    );
    expect(revoke.status).toBe(200);
    for (const r of [r2, r1]) {
      const res = await call(r.url, "GET", "/api/agents/runtime/events", a.token);
      expect(res.status).toBe(401);
      expect((res.body as { code: string }).code).toBe("token_revoked");
    }
  });
});
