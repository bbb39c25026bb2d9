/**
 * What the accelerated SQLite store answers without reading: idle marks (an agent whose claim found
 * neither a pending nor a leased event is answered without reading, sqlite/idle-agents.ts) and the active
 * installations of a pod and of an agent (sqlite/installation-cache.ts). These tests are the ways each could go stale: every one must make
 * the next answer read again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { anIdentity, anInstallation, aWorld, events, T0 } from "./contract-fixtures.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A database file of its own (removed after the test), for a second process-like store to write. */
function aFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "cap-read-caches-"));
  dirs.push(dir);
  return join(dir, "k.db");
}

const claimAt = (store: ReturnType<typeof openSqliteStore>, agentId: string, now: number, maxAttempts = 5) =>
  store.claimEvents({ agentId, limit: 10, leaseMs: 1000, maxAttempts, now });

/** An in-memory store whose agent holds its one event, claimed once at T0 (1 s lease). */
async function oneClaimed(maxAttempts = 5) {
  const store = openSqliteStore({ path: ":memory:" });
  const { agent, pod } = await aWorld(store);
  const [e] = events(agent.id, pod.id, 1);
  await store.enqueueEvents([e!]);
  expect((await claimAt(store, agent.id, T0, maxAttempts)).events).toHaveLength(1);
  return { store, agent, e: e! };
}

describe("sqlite idle marks", () => {
  it("claims an event enqueued in this process after an empty claim", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { agent, pod } = await aWorld(store);
    expect((await claimAt(store, agent.id, T0)).events).toEqual([]);
    expect(await store.nextLeaseExpiry({ agentId: agent.id, now: T0, maxAttempts: 5 })).toBeNull();
    const [e] = events(agent.id, pod.id, 1);
    await store.enqueueEvents([e!]);
    expect((await claimAt(store, agent.id, T0 + 1)).events.map((x) => x.id)).toEqual([e!.id]);
    await store.close();
  });

  it("claims an event another process enqueued into the file after an empty claim", async () => {
    const path = aFile();
    const store = openSqliteStore({ path });
    const { agent, pod } = await aWorld(store);
    expect((await claimAt(store, agent.id, T0)).events).toEqual([]);
    const other = openSqliteStore({ path });
    const [e] = events(agent.id, pod.id, 1);
    await other.enqueueEvents([e!]);
    await other.close();
    expect((await claimAt(store, agent.id, T0 + 1)).events.map((x) => x.id)).toEqual([e!.id]);
    await store.close();
  });

  it("never marks an agent holding a lease: the event comes back when the lease ends", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { agent, pod } = await aWorld(store);
    await store.enqueueEvents(events(agent.id, pod.id, 1));
    expect((await claimAt(store, agent.id, T0)).events).toHaveLength(1);
    expect((await claimAt(store, agent.id, T0 + 10)).events).toEqual([]);
    expect(await store.nextLeaseExpiry({ agentId: agent.id, now: T0 + 10, maxAttempts: 5 })).toBe(T0 + 1000);
    const again = await claimAt(store, agent.id, T0 + 2000);
    expect(again.events.map((x) => x.attempts)).toEqual([2]);
    await store.close();
  });

  it("drops marks set inside a transaction that rolls back", async () => {
    const { store, agent, e } = await oneClaimed();
    await expect(
      store.transaction(async (tx) => {
        await tx.ackEvent({ agentId: agent.id, eventId: e.id, now: T0 + 1, result: null });
        // Nothing pending or leased inside the transaction: the claim marks the agent idle.
        expect(
          (await tx.claimEvents({ agentId: agent.id, limit: 10, leaseMs: 1000, maxAttempts: 5, now: T0 + 1 }))
            .events,
        ).toEqual([]);
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    // The ack was undone: the lease ends at T0 + 1000 and the event is delivered again.
    expect((await claimAt(store, agent.id, T0 + 2000)).events.map((x) => x.id)).toEqual([e.id]);
    await store.close();
  });

  it("claims a dead-lettered event again once it is requeued", async () => {
    const { store, agent, e } = await oneClaimed(1);
    // The lease ended with no attempt left: retired to failed, nothing pending or leased (marked idle).
    const retired = await claimAt(store, agent.id, T0 + 2000, 1);
    expect([retired.events, retired.newlyFailed]).toEqual([[], 1]);
    expect((await store.requeueEvent({ eventId: e.id, now: T0 + 2000 })).status).toBe("requeued");
    expect((await claimAt(store, agent.id, T0 + 2001, 1)).events.map((x) => x.id)).toEqual([e.id]);
    await store.close();
  });
});

describe("sqlite installation reads", () => {
  const active = async (store: ReturnType<typeof openSqliteStore>, podId: string) =>
    (await store.listInstallations({ podId, activeOnly: true })).map((i) => i.agentName);

  it("sees an install and an uninstall at once", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { human, pod, agent, installation } = await aWorld(store);
    expect(await active(store, pod.id)).toEqual(["echo"]);
    const other = await anIdentity(store, "other");
    await anInstallation(store, other, pod.id, human.id);
    expect(await active(store, pod.id)).toEqual(["echo", "other"]);
    expect((await store.findActiveInstallation(agent.id, pod.id))?.id).toBe(installation.id);
    expect(await store.markInstallationUninstalled({ id: installation.id, now: T0, by: human.id })).toBe(
      true,
    );
    expect(await active(store, pod.id)).toEqual(["other"]);
    expect(await store.findActiveInstallation(agent.id, pod.id)).toBeNull();
    await store.close();
  });

  it("forgets an installation read inside a transaction that rolls back", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { human, pod } = await aWorld(store);
    const other = await anIdentity(store, "other");
    await expect(
      store.transaction(async (tx) => {
        await anInstallation(tx, other, pod.id, human.id);
        expect((await tx.listInstallations({ podId: pod.id, activeOnly: true })).length).toBe(2);
        expect(await tx.findActiveInstallation(other.id, pod.id)).not.toBeNull();
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await active(store, pod.id)).toEqual(["echo"]);
    expect(await store.findActiveInstallation(other.id, pod.id)).toBeNull();
    await store.close();
  });

  it("sees an installation another process wrote into the file", async () => {
    const path = aFile();
    const store = openSqliteStore({ path });
    const { human, pod } = await aWorld(store);
    expect(await active(store, pod.id)).toEqual(["echo"]);
    const writer = openSqliteStore({ path });
    const other = await anIdentity(writer, "other");
    await anInstallation(writer, other, pod.id, human.id);
    await writer.close();
    // The caches look at the file at most every 5 ms: the foreign commit is seen within that.
    const deadline = Date.now() + 2_000;
    while ((await active(store, pod.id)).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    expect(await active(store, pod.id)).toEqual(["echo", "other"]);
    expect(await store.findActiveInstallation(other.id, pod.id)).not.toBeNull();
    await store.close();
  });

  it("hands out copies: a caller changing a record does not change the next answer", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    const { agent, pod } = await aWorld(store);
    const [first] = await store.listInstallations({ podId: pod.id, activeOnly: true });
    first!.status = "uninstalled";
    const found = await store.findActiveInstallation(agent.id, pod.id);
    found!.podId = "pod_elsewhere";
    expect((await store.listInstallations({ podId: pod.id, activeOnly: true }))[0]?.status).toBe("active");
    expect((await store.findActiveInstallation(agent.id, pod.id))?.podId).toBe(pod.id);
    await store.close();
  });
});
