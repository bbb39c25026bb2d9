/**
 * The store contract of release and batch ack: releaseEvent (fenced like renew, ready again at
 * availableAt, failed at once on the last attempt) and ackEvents (one transaction, per-item results, first
 * ack wins). Called by runStoreContract; the replay of polls is contract-suite-poll-replay.ts.
 */
import { describe, expect, it } from "vitest";
import type { Store, StoreOps } from "../../src/store/contract.js";
import { eventually } from "../../src/testing/deadline.js";
import { events, onReady, T0 } from "./contract-fixtures.js";

const LEASE = 1000;
const MAX = 3;

export function runQueueVerbContract(store: () => Store): void {
  const claim = (agentId: string, now: number, limit = 10, s: StoreOps = store()) =>
    s.claimEvents({ agentId, limit, leaseMs: LEASE, maxAttempts: MAX, now });
  const release = (
    eventId: string,
    attempts: number,
    now: number,
    availableAt = now,
    reason: string | null = null,
    agentId = "agt_a",
  ) => store().releaseEvent({ agentId, eventId, attempts, now, availableAt, reason, maxAttempts: MAX });

  describe("release", () => {
    it("ends the delivery and makes the event ready at availableAt, then claimable with attempts + 1", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      expect(await release(ev!.id, 1, T0 + 100, T0 + 5000, "provider down")).toEqual({
        status: "released",
        availableAt: T0 + 5000,
      });
      const stored = await s.getEvent(ev!.id);
      expect(stored).toMatchObject({
        releasedAttempts: 1,
        releaseReason: "provider down",
        availableAt: T0 + 5000,
      });
      expect((await claim("agt_a", T0 + 4999)).events).toEqual([]);
      expect(await s.nextLeaseExpiry({ agentId: "agt_a", now: T0 + 200, maxAttempts: MAX })).toBe(T0 + 5000);
      const again = await claim("agt_a", T0 + 5000);
      expect(again.events.map((e) => [e.id, e.attempts])).toEqual([[ev!.id, 2]]);
    });

    it("with no delay makes the event ready at once, keeping its place before newer events", async () => {
      const s = store();
      const [a, b] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([a!]);
      await claim("agt_a", T0);
      await s.enqueueEvents([b!]);
      expect((await release(a!.id, 1, T0 + 10)).status).toBe("released");
      expect((await claim("agt_a", T0 + 10)).events.map((e) => [e.id, e.attempts])).toEqual([
        [a!.id, 2],
        [b!.id, 1],
      ]);
    });

    it("is fenced like renew: only the delivery that holds a running lease, once", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      expect(await release(ev!.id, 2, T0 + 1)).toEqual({ status: "lease_lost" });
      expect(await release(ev!.id, 1, T0 + 1, T0 + 1, null, "agt_b")).toEqual({ status: "not_found" });
      expect(await release("evt_nope", 1, T0 + 1)).toEqual({ status: "not_found" });
      expect((await release(ev!.id, 1, T0 + 2, T0 + 500)).status).toBe("released");
      expect(await release(ev!.id, 1, T0 + 3, T0 + 900)).toEqual({ status: "lease_lost" });
      expect(
        await s.renewLease({ agentId: "agt_a", eventId: ev!.id, attempts: 1, leaseMs: LEASE, now: T0 + 4 }),
      ).toEqual({ status: "lease_lost" });
      expect((await s.getEvent(ev!.id))?.availableAt).toBe(T0 + 500);
      await claim("agt_a", T0 + 500);
      expect(await release(ev!.id, 2, T0 + 500 + LEASE)).toEqual({ status: "lease_lost" });
      await s.ackEvent({ agentId: "agt_a", eventId: ev!.id, now: T0 + 600, result: null });
      expect(await release(ev!.id, 2, T0 + 700)).toEqual({ status: "lease_lost" });
    });

    it("makes the event failed at once when the released delivery used the last attempt", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      let now = T0;
      for (let i = 1; i < MAX; i++, now += LEASE) await claim("agt_a", now);
      expect((await claim("agt_a", now)).events[0]?.attempts).toBe(MAX);
      expect(await release(ev!.id, MAX, now + 1, now + 60_000, "poison")).toEqual({ status: "failed" });
      const dead = await s.listDeadLetters({ agentId: "agt_a", limit: 10 });
      expect(dead.map((e) => [e.id, e.failReason, e.failedAt, e.releaseReason])).toEqual([
        [ev!.id, "released", now + 1, "poison"],
      ]);
      expect((await s.requeueEvent({ eventId: ev!.id, now: now + 2 })).status).toBe("requeued");
      expect((await claim("agt_a", now + 3)).events.map((e) => e.attempts)).toEqual([MAX + 1]);
    });

    it("signals the agent's waiting polls after a release commits", async () => {
      const s = store();
      const [ev] = events("agt_r", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_r", T0);
      const seen: string[] = [];
      const off = onReady(s, (id) => seen.push(id));
      await release(ev!.id, 1, T0 + 1, T0 + 1, null, "agt_r");
      await eventually(() => seen.includes("agt_r"), "agt_r is announced ready");
      off();
    });
  });

  describe("batch ack", () => {
    it("acks each item as ackEvent would, in order, first ack winning, and refuses unknown or foreign ids", async () => {
      const s = store();
      const [a, b, c] = events("agt_a", "pod_a", 3);
      const [foreign] = events("agt_b", "pod_a", 1);
      await s.enqueueEvents([a!, b!, c!, foreign!]);
      await claim("agt_a", T0, 1);
      await s.ackEvent({ agentId: "agt_a", eventId: c!.id, now: T0, result: { outcome: "skipped" } });
      const found = await s.ackEvents({
        agentId: "agt_a",
        now: T0 + 5,
        items: [
          { eventId: a!.id, result: { outcome: "posted" } },
          { eventId: "evt_nope", result: null },
          { eventId: b!.id, result: null },
          { eventId: a!.id, result: { outcome: "error" } },
          { eventId: foreign!.id, result: null },
          { eventId: c!.id, result: { outcome: "error" } },
        ],
      });
      expect(found).toEqual([true, false, true, true, false, true]);
      expect(await s.getEvent(a!.id)).toMatchObject({
        state: "acked",
        ackedAt: T0 + 5,
        result: { outcome: "posted" },
      });
      expect((await s.getEvent(b!.id))?.state).toBe("acked");
      expect(await s.getEvent(c!.id)).toMatchObject({ ackedAt: T0, result: { outcome: "skipped" } });
      expect((await s.getEvent(foreign!.id))?.state).toBe("pending");
      expect((await claim("agt_a", T0 + 10 * LEASE)).events).toEqual([]);
    });

    it("settles nothing when its transaction rolls back", async () => {
      const s = store();
      const [a] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([a!]);
      await s
        .transaction(async (tx) => {
          await tx.ackEvents({ agentId: "agt_a", now: T0, items: [{ eventId: a!.id, result: null }] });
          throw new Error("rollback");
        })
        .catch(() => undefined);
      expect((await s.getEvent(a!.id))?.state).toBe("pending");
    });
  });
}
