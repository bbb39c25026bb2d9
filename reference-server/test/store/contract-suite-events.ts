/**
 * The event half of the store contract suite: claims, leases, attempts, acks, renewals, dead letters and
 * ready notifications. Called by runStoreContract; `store()` returns the current test's fresh store.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/contract.js";
import { eventually } from "../../src/testing/deadline.js";
import { events, onReady, T0 } from "./contract-fixtures.js";

const LEASE = 1000;
const MAX = 3;

export function runEventContract(store: () => Store): void {
  const claim = (agentId: string, now: number, limit = 10) =>
    store().claimEvents({ agentId, limit, leaseMs: LEASE, maxAttempts: MAX, now });

  describe("events", () => {
    it("claims ready events oldest first up to the limit, counting the attempt and setting the lease", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 5);
      await s.enqueueEvents(evs);
      await s.enqueueEvents(events("agt_b", "pod_a", 2));
      const r = await claim("agt_a", T0 + 10, 3);
      expect(r.events.map((e) => e.id)).toEqual(evs.slice(0, 3).map((e) => e.id));
      for (const e of r.events) {
        expect(e.state).toBe("leased");
        expect(e.attempts).toBe(1);
        expect(e.leaseExpiresAt).toBe(T0 + 10 + LEASE);
        expect(e.agentId).toBe("agt_a");
      }
      // A claim hands out each payload as the JSON text the store holds (DeliveredEvent).
      expect(r.events.map((e) => JSON.parse(e.payloadJson))).toEqual(evs.slice(0, 3).map((e) => e.payload));
      expect((await claim("agt_a", T0 + 11)).events.map((e) => e.id)).toEqual(evs.slice(3).map((e) => e.id));
    });

    it("does not return a leased event again until its lease ends, then returns it with attempts + 1", async () => {
      const s = store();
      await s.enqueueEvents(events("agt_a", "pod_a", 1));
      const first = (await claim("agt_a", T0)).events[0]!;
      expect((await claim("agt_a", T0 + LEASE - 1)).events).toEqual([]);
      const r = await claim("agt_a", T0 + LEASE);
      expect(r.events.map((e) => [e.id, e.attempts])).toEqual([[first.id, 2]]);
      expect(r.expiredLeases).toBe(1);
    });

    it("merges ended leases with pending events oldest first, the limit counting both", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 6);
      await s.enqueueEvents(evs);
      const got = async (now: number, limit: number) =>
        (await claim("agt_a", now, limit)).events.map((e) => [e.id, e.attempts]);
      const id = (i: number) => evs[i]!.id;
      expect(await got(T0, 3)).toEqual([
        [id(0), 1],
        [id(1), 1],
        [id(2), 1],
      ]);
      expect(await got(T0 + 500, 1)).toEqual([[id(3), 1]]); // its lease ends 500 ms after the others'
      // At T0 + LEASE: 0, 1 and 2 have ended, 3 runs, 4 and 5 were never delivered.
      expect(await got(T0 + LEASE, 1)).toEqual([[id(0), 2]]);
      expect(await got(T0 + LEASE, 3)).toEqual([
        [id(1), 2],
        [id(2), 2],
        [id(4), 1],
      ]);
      expect(await got(T0 + LEASE, 10)).toEqual([[id(5), 1]]);
      expect(await got(T0 + 500 + LEASE, 10)).toEqual([[id(3), 2]]);
    });

    it("delivers an unacked event at most maxAttempts times, then keeps it as failed from its last lease end", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      let now = T0;
      for (let i = 1; i <= MAX; i++) {
        const r = await claim("agt_a", now);
        expect(r.events.map((e) => e.attempts)).toEqual([i]);
        now += LEASE;
      }
      const r = await claim("agt_a", now + 5);
      expect(r.events).toEqual([]);
      expect(r.newlyFailed).toBe(1);
      const failed = await s.getEvent(ev!.id);
      expect(failed?.state).toBe("failed");
      expect(failed?.failReason).toBe("max_attempts");
      expect(failed?.failedAt).toBe(now);
      expect((await s.listDeadLetters({ limit: 10 })).map((e) => e.id)).toEqual([ev!.id]);
    });

    it("acks idempotently, from any state, and never for another agent", async () => {
      const s = store();
      const [a, b] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([a!, b!]);
      expect(await s.ackEvent({ agentId: "agt_b", eventId: a!.id, now: T0, result: null })).toBe(false);
      expect(await s.ackEvent({ agentId: "agt_a", eventId: "evt_unknown", now: T0, result: null })).toBe(
        false,
      );
      expect((await s.getEvent(a!.id))?.state).toBe("pending");
      expect(
        await s.ackEvent({ agentId: "agt_a", eventId: a!.id, now: T0 + 1, result: { outcome: "posted" } }),
      ).toBe(true);
      const acked = await s.getEvent(a!.id);
      expect(acked?.state).toBe("acked");
      expect(acked?.ackedAt).toBe(T0 + 1);
      expect(
        await s.ackEvent({ agentId: "agt_a", eventId: a!.id, now: T0 + 2, result: { outcome: "error" } }),
      ).toBe(true);
      const again = await s.getEvent(a!.id);
      expect(again?.ackedAt).toBe(T0 + 1);
      expect(again?.result).toEqual({ outcome: "posted" });
      expect((await claim("agt_a", T0 + 3)).events.map((e) => e.id)).toEqual([b!.id]);
      expect(await s.ackEvent({ agentId: "agt_a", eventId: b!.id, now: T0 + 4, result: null })).toBe(true);
      expect((await s.getEvent(b!.id))?.state).toBe("acked");
      expect((await claim("agt_a", T0 + 10 * LEASE)).events).toEqual([]);
    });

    it("acks a failed event", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      for (let i = 0; i < MAX; i++) await claim("agt_a", T0 + i * LEASE);
      await s.failExhausted({ now: T0 + MAX * LEASE, maxAttempts: MAX });
      expect((await s.getEvent(ev!.id))?.state).toBe("failed");
      expect(await s.ackEvent({ agentId: "agt_a", eventId: ev!.id, now: T0, result: null })).toBe(true);
      expect((await s.getEvent(ev!.id))?.state).toBe("acked");
    });

    it("renews only the current delivery of a running lease", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      const renew = (attempts: number, now: number, agentId = "agt_a", eventId = ev!.id) =>
        s.renewLease({ agentId, eventId, attempts, leaseMs: LEASE, now });
      expect(await renew(1, T0 + 500)).toEqual({ status: "renewed", leaseExpiresAt: T0 + 500 + LEASE });
      expect(await renew(2, T0 + 600)).toEqual({ status: "lease_lost" });
      expect(await renew(1, T0 + 600, "agt_b")).toEqual({ status: "not_found" });
      expect(await renew(1, T0 + 600, "agt_a", "evt_nope")).toEqual({ status: "not_found" });
      expect((await claim("agt_a", T0 + LEASE + 100)).events).toEqual([]);
      expect(await renew(1, T0 + 500 + LEASE)).toEqual({ status: "lease_lost" });
      expect((await claim("agt_a", T0 + 500 + LEASE)).events[0]?.attempts).toBe(2);
      expect(await renew(1, T0 + 600 + LEASE)).toEqual({ status: "lease_lost" });
      await s.ackEvent({ agentId: "agt_a", eventId: ev!.id, now: T0 + 700 + LEASE, result: null });
      expect(await renew(2, T0 + 800 + LEASE)).toEqual({ status: "lease_lost" });
    });

    it("reports the earliest running lease of an agent", async () => {
      const s = store();
      await s.enqueueEvents(events("agt_a", "pod_a", 2));
      expect(await s.nextLeaseExpiry({ agentId: "agt_a", now: T0, maxAttempts: MAX })).toBeNull();
      await claim("agt_a", T0, 1);
      await claim("agt_a", T0 + 100, 1);
      expect(await s.nextLeaseExpiry({ agentId: "agt_a", now: T0 + 200, maxAttempts: MAX })).toBe(T0 + LEASE);
      expect(await s.nextLeaseExpiry({ agentId: "agt_a", now: T0 + LEASE, maxAttempts: MAX })).toBe(
        T0 + 100 + LEASE,
      );
      expect(await s.nextLeaseExpiry({ agentId: "agt_b", now: T0, maxAttempts: MAX })).toBeNull();
    });

    it("reports, in one call for many agents, when each has an event ready: now, at a lease's end, or never", async () => {
      const s = store();
      const ready = async (agentIds: string[], now: number) =>
        (await s.readyInstants({ agentIds, now, maxAttempts: MAX }))
          .map((r) => [r.agentId, r.at <= now ? "now" : r.at - T0] as const)
          .sort((x, y) => x[0].localeCompare(y[0]));
      expect(await ready([], T0)).toEqual([]);
      await s.enqueueEvents(events("agt_a", "pod_a", 2)); // a: pending → ready now
      await s.enqueueEvents(events("agt_b", "pod_a", 1)); // b: leased below → ready at the lease's end
      await s.enqueueEvents(events("agt_c", "pod_a", 1)); // c: acked below → nothing
      await claim("agt_b", T0 + 100);
      const [c] = (await claim("agt_c", T0)).events;
      await s.ackEvent({ agentId: "agt_c", eventId: c!.id, now: T0 + 1, result: null });
      expect(await ready(["agt_a", "agt_b", "agt_c", "agt_none"], T0 + 200)).toEqual([
        ["agt_a", "now"],
        ["agt_b", 100 + LEASE],
      ]);
      expect(await ready(["agt_b"], T0 + 100 + LEASE)).toEqual([["agt_b", "now"]]);
      // b's last allowed delivery: once its lease ends it becomes failed, never ready again.
      await claim("agt_b", T0 + 100 + LEASE);
      await claim("agt_b", T0 + 100 + 2 * LEASE);
      expect(await ready(["agt_b"], T0 + 200 + 2 * LEASE)).toEqual([]);
    });

    it("requeues a failed event with a fresh delivery budget and refuses other states", async () => {
      const s = store();
      const [ev, other] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([ev!, other!]);
      await s.failOpenEvents({ agentId: "agt_a", podId: "pod_a", now: T0 + 1, reason: "uninstalled" });
      expect((await s.getEvent(ev!.id))?.failReason).toBe("uninstalled");
      const r = await s.requeueEvent({ eventId: ev!.id, now: T0 + 2 });
      expect(r.status).toBe("requeued");
      if (r.status === "requeued") {
        expect(r.event.state).toBe("pending");
        expect(r.event.failedAt).toBeNull();
      }
      expect((await s.requeueEvent({ eventId: ev!.id, now: T0 })).status).toBe("not_failed");
      expect((await s.requeueEvent({ eventId: "evt_nope", now: T0 })).status).toBe("not_found");
      expect((await claim("agt_a", T0 + 3)).events.map((e) => [e.id, e.attempts])).toEqual([[ev!.id, 1]]);
    });

    it("gives a requeued dead letter maxAttempts further deliveries while attempts keeps counting up", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      let now = T0;
      for (let i = 0; i < MAX; i++, now += LEASE) await claim("agt_a", now);
      await s.failExhausted({ now, maxAttempts: MAX });
      expect((await s.requeueEvent({ eventId: ev!.id, now })).status).toBe("requeued");
      const seen: number[] = [];
      for (let i = 0; i < MAX + 1; i++, now += LEASE)
        seen.push(...(await claim("agt_a", now)).events.map((e) => e.attempts));
      expect(seen).toEqual([MAX + 1, MAX + 2, MAX + 3]);
      expect((await s.getEvent(ev!.id))?.state).toBe("failed");
      expect((await s.getEvent(ev!.id))?.attemptBase).toBe(MAX);
    });

    it("lists dead letters by agent and pod, pod events newest first, and counts states", async () => {
      const s = store();
      await s.enqueueEvents(events("agt_a", "pod_a", 2));
      await s.enqueueEvents(events("agt_b", "pod_b", 1, T0 + 50));
      await s.failOpenEvents({ agentId: "agt_b", podId: "pod_b", now: T0 + 60, reason: "uninstalled" });
      await claim("agt_a", T0 + 100, 1);
      expect(await s.listDeadLetters({ agentId: "agt_a", limit: 10 })).toEqual([]);
      expect(await s.listDeadLetters({ podId: "pod_b", limit: 10 })).toHaveLength(1);
      const podEvents = await s.listPodEvents({ podId: "pod_a", limit: 10 });
      expect(podEvents.map((e) => e.payload)).toEqual([
        { taskId: "t1", title: "task 1", nested: { list: [1, "two", null] } },
        expect.anything(),
      ]);
      expect(await s.queueStats()).toEqual({ pending: 1, leased: 1, acked: 0, failed: 1, cancelled: 0 });
    });

    it("never gives one event to two concurrent claims", async () => {
      const s = store();
      await s.enqueueEvents(events("agt_a", "pod_a", 40));
      const results = await Promise.all(Array.from({ length: 8 }, () => claim("agt_a", T0, 7)));
      const ids = results.flatMap((r) => r.events.map((e) => e.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(40);
    });

    it("signals ready agents after an enqueue or requeue commits, and not for a rolled-back enqueue", async () => {
      const s = store();
      const seen: string[] = [];
      const off = onReady(s, (id) => seen.push(id));
      await s.enqueueEvents([...events("agt_a", "pod_a", 2), ...events("agt_b", "pod_a", 1)]);
      await eventually(
        () => seen.includes("agt_a") && seen.includes("agt_b"),
        "agt_a and agt_b are announced ready",
      );
      await s
        .transaction(async (tx) => {
          await tx.enqueueEvents(events("agt_rolled", "pod_a", 1));
          throw new Error("rollback");
        })
        .catch(() => undefined);
      const [ev] = events("agt_c", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await eventually(() => seen.includes("agt_c"), "agt_c is announced ready");
      expect(seen).not.toContain("agt_rolled");
      await s.failOpenEvents({ agentId: "agt_c", podId: "pod_a", now: T0, reason: "uninstalled" });
      seen.length = 0;
      await s.requeueEvent({ eventId: ev!.id, now: T0 + 1 });
      await eventually(() => seen.includes("agt_c"), "agt_c is announced ready");
      off();
    });
  });
}
