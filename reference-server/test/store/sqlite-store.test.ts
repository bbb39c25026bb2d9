import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { anIdentity, aWorld, events, T0 } from "./contract-fixtures.js";
import { runStoreContract } from "./contract-suite.js";

runStoreContract(async () => openSqliteStore({ path: ":memory:" }), "sqlite");

describe("sqlite store specifics", () => {
  it("claims through the ready index in insertion order, without a sort step", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    // biome-ignore lint/suspicious/noExplicitAny: reaching into the driver for EXPLAIN only
    const Database = (await import("better-sqlite3")).default as any;
    const db = new Database(":memory:");
    db.exec(
      "CREATE TABLE events (seq INTEGER PRIMARY KEY, agent_id TEXT, state TEXT, lease_expires_at INTEGER, attempts INTEGER);" +
        "CREATE INDEX events_ready ON events (agent_id, seq) WHERE state IN ('pending', 'leased');",
    );
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT seq FROM events WHERE agent_id = 'a' AND state IN ('pending', 'leased')
         AND (state = 'pending' OR lease_expires_at <= 5) AND attempts < 5 ORDER BY seq LIMIT 10`,
      )
      .all()
      .map((r: { detail: string }) => r.detail)
      .join("\n");
    expect(plan).toContain("events_ready");
    expect(plan).not.toContain("TEMP B-TREE");
    await store.close();
  });
});

describe("sqlite group commit of single acks", () => {
  it("settles acks sent in one turn exactly as one at a time: first wins, foreign and unknown ids get null", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { agent, pod } = await aWorld(store);
    const other = await anIdentity(store, "someone-else");
    const batch = events(agent.id, pod.id, 6);
    await store.enqueueEvents(batch);
    const { events: held } = await store.claimEvents({
      agentId: agent.id,
      limit: 6,
      leaseMs: 30_000,
      maxAttempts: 5,
      now: T0,
    });
    expect(held).toHaveLength(6);
    const ack = (agentId: string, eventId: string, n: number) =>
      store.ackEvent({ agentId, eventId, now: T0 + n, result: { outcome: `r${n}` } });
    // All issued before any settles, so they share one flush.
    const answers = await Promise.all([
      ...held.map((e, i) => ack(agent.id, e.id, i)),
      ack(agent.id, held[0]!.id, 99), // a repeat: the first ack's result stays
      ack(other.id, held[1]!.id, 98), // another agent's event
      ack(agent.id, "evt_unknown", 97),
    ]);
    expect(answers.slice(0, 6).map((e) => [e?.state, e?.result])).toEqual(
      held.map((_, i) => ["acked", { outcome: `r${i}` }]),
    );
    expect(answers[6]?.result).toEqual({ outcome: "r0" });
    expect(answers.slice(7)).toEqual([null, null]);
    for (const e of held) expect((await store.getEvent(e.id))?.state).toBe("acked");
    await store.close();
  });

  it("writes acks queued when the store closes before it closes", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { agent, pod } = await aWorld(store);
    await store.enqueueEvents(events(agent.id, pod.id, 1));
    const [e] = (
      await store.claimEvents({ agentId: agent.id, limit: 1, leaseMs: 30_000, maxAttempts: 5, now: T0 })
    ).events;
    const acked = store.ackEvent({ agentId: agent.id, eventId: e!.id, now: T0, result: null });
    await store.close();
    expect((await acked)?.state).toBe("acked");
  });
});
