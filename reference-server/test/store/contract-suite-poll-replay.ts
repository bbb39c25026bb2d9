/**
 * The store contract of retry-safe polls: `claimEvents` with a `pollId` answers the deliveries claimed
 * under it while they are held (same attempts, current lease) and claims nothing; otherwise it claims
 * afresh and records the claim under the pollId. Called by runStoreContract; `store()` is the test's store.
 */
import { describe, expect, it } from "vitest";
import type { DeliveredEvent, Store } from "../../src/store/contract.js";
import { events, T0 } from "./contract-fixtures.js";

const LEASE = 1000;
const MAX = 3;

export function runPollReplayContract(store: () => Store): void {
  const poll = (agentId: string, pollId: string | undefined, now: number, limit = 10) =>
    store().claimEvents({ agentId, limit, leaseMs: LEASE, maxAttempts: MAX, now, pollId });
  const ids = (evs: { id: string }[]) => evs.map((e) => e.id);
  const deliveries = (evs: DeliveredEvent[]) => evs.map((e) => [e.id, e.attempts, e.leaseExpiresAt]);

  describe("poll replay (claimEvents with a pollId)", () => {
    it("given deliveries held under a pollId, a poll with it answers exactly those and claims nothing", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 5);
      await s.enqueueEvents(evs);
      const first = await poll("agt_a", "p1", T0, 3);
      expect(ids(first.events)).toEqual(ids(evs.slice(0, 3)));
      const replay = await poll("agt_a", "p1", T0 + 10, 3);
      expect(deliveries(replay.events)).toEqual(deliveries(first.events));
      expect(replay.events.map((e) => JSON.parse(e.payloadJson))).toEqual(
        evs.slice(0, 3).map((e) => e.payload),
      );
      expect([replay.expiredLeases, replay.newlyFailed]).toEqual([0, 0]);
      // The two events behind them are still pending: the replay claimed neither.
      expect(ids((await poll("agt_a", undefined, T0 + 20)).events)).toEqual(ids(evs.slice(3)));
    });

    it("answers only the deliveries still held, with their current lease: not acked, released or lost ones", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 4);
      await s.enqueueEvents(evs);
      await poll("agt_a", "p1", T0, 4);
      await s.ackEvent({ agentId: "agt_a", eventId: evs[0]!.id, now: T0 + 20, result: null });
      const release = {
        agentId: "agt_a",
        eventId: evs[1]!.id,
        attempts: 1,
        now: T0 + 20,
        availableAt: T0 + 20,
      };
      await s.releaseEvent({ ...release, reason: null, maxAttempts: MAX });
      await s.renewLease({
        agentId: "agt_a",
        eventId: evs[2]!.id,
        attempts: 1,
        leaseMs: LEASE,
        now: T0 + 30,
      });
      // evs[3] keeps its first lease, and evs[1] (released, ready again) is claimed by someone else meanwhile.
      expect(ids((await poll("agt_a", undefined, T0 + 35, 1)).events)).toEqual([evs[1]!.id]);
      const replay = await poll("agt_a", "p1", T0 + 40);
      expect(deliveries(replay.events)).toEqual([
        [evs[2]!.id, 1, T0 + 30 + LEASE],
        [evs[3]!.id, 1, T0 + LEASE],
      ]);
    });

    it("never replays a delivery whose lease ended and a later poll claimed, while a renewed one is held (CAP-REPLAY-8)", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 3);
      await s.enqueueEvents(evs);
      await poll("agt_a", "p1", T0, 3);
      // evs[0] is acked in a batch, evs[1] is kept by renewals, evs[2]'s lease runs out.
      await s.ackEvents({ agentId: "agt_a", now: T0 + 5, items: [{ eventId: evs[0]!.id, result: null }] });
      const renew = { agentId: "agt_a", eventId: evs[1]!.id, attempts: 1, leaseMs: LEASE };
      await s.renewLease({ ...renew, now: T0 + LEASE / 2 });
      // Past evs[2]'s lease, before anyone claims it again: the replay leaves it out (no stale lease).
      expect(deliveries((await poll("agt_a", "p1", T0 + LEASE)).events)).toEqual([
        [evs[1]!.id, 1, T0 + LEASE / 2 + LEASE],
      ]);
      // A later poll under another pollId claims evs[2] again; the replay still answers evs[1] alone.
      expect(deliveries((await poll("agt_a", "p2", T0 + LEASE + 10)).events)).toEqual([
        [evs[2]!.id, 2, T0 + 2 * LEASE + 10],
      ]);
      expect(deliveries((await poll("agt_a", "p1", T0 + LEASE + 20)).events)).toEqual([
        [evs[1]!.id, 1, T0 + LEASE / 2 + LEASE],
      ]);
      // Once evs[1] is acked too, p1 is a fresh poll: nothing is ready (evs[2] is p2's), so nothing comes.
      await s.ackEvent({ agentId: "agt_a", eventId: evs[1]!.id, now: T0 + LEASE + 30, result: null });
      expect((await poll("agt_a", "p1", T0 + LEASE + 40)).events).toEqual([]);
      expect(deliveries((await poll("agt_a", "p2", T0 + LEASE + 50)).events)).toEqual([
        [evs[2]!.id, 2, T0 + 2 * LEASE + 10],
      ]);
    });

    it("claims afresh, and records the new claim, once the held deliveries are acked", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 4);
      await s.enqueueEvents(evs);
      const first = await poll("agt_a", "p1", T0, 2);
      await s.ackEvents({
        agentId: "agt_a",
        now: T0 + 5,
        items: first.events.map((e) => ({ eventId: e.id, result: null })),
      });
      const fresh = await poll("agt_a", "p1", T0 + 10, 2);
      expect(ids(fresh.events)).toEqual(ids(evs.slice(2)));
      expect(deliveries((await poll("agt_a", "p1", T0 + 20, 2)).events)).toEqual(deliveries(fresh.events));
    });

    it("claims afresh once the held leases have ended, re-delivering them with attempts + 1", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 2);
      await s.enqueueEvents(evs);
      await poll("agt_a", "p1", T0);
      const fresh = await poll("agt_a", "p1", T0 + LEASE);
      expect(deliveries(fresh.events)).toEqual(evs.map((e) => [e.id, 2, T0 + 2 * LEASE]));
      expect(fresh.expiredLeases).toBe(2);
      // A later claim without the pollId takes the events over: the pollId's record of them is stale.
      const other = await poll("agt_a", undefined, T0 + 3 * LEASE);
      expect(ids(other.events)).toEqual(ids(evs));
      expect((await poll("agt_a", "p1", T0 + 3 * LEASE)).events).toEqual([]);
    });

    it("claims afresh for a different pollId, and for the same pollId of another agent", async () => {
      const s = store();
      const [a1, a2] = events("agt_a", "pod_a", 2);
      const [b1] = events("agt_b", "pod_a", 1);
      await s.enqueueEvents([a1!, a2!, b1!]);
      expect(ids((await poll("agt_a", "p1", T0, 1)).events)).toEqual([a1!.id]);
      expect(ids((await poll("agt_a", "p2", T0 + 1, 1)).events)).toEqual([a2!.id]);
      expect(ids((await poll("agt_b", "p1", T0 + 2, 1)).events)).toEqual([b1!.id]);
      expect(ids((await poll("agt_a", "p1", T0 + 3)).events)).toEqual([a1!.id]);
      expect(ids((await poll("agt_a", "p2", T0 + 3)).events)).toEqual([a2!.id]);
    });

    it("gives two concurrent polls with the same pollId the same deliveries: they do not both claim", async () => {
      const s = store();
      await s.enqueueEvents(events("agt_a", "pod_a", 9));
      for (const pollId of ["same-1", "same-2"]) {
        const [x, y] = await Promise.all([poll("agt_a", pollId, T0, 3), poll("agt_a", pollId, T0, 3)]);
        expect(deliveries(x.events)).toHaveLength(3);
        expect(deliveries(y.events)).toEqual(deliveries(x.events));
      }
      expect((await poll("agt_a", undefined, T0 + 1)).events).toHaveLength(3);
    });

    it("is not hidden by claims that found nothing ready: an agent that holds deliveries is never idle", async () => {
      const s = store();
      const evs = events("agt_a", "pod_a", 2);
      await s.enqueueEvents(evs);
      const first = await poll("agt_a", "p1", T0);
      // Claims that find nothing ready (the SQLite store marks an agent with nothing open as idle then).
      expect((await poll("agt_a", undefined, T0 + 1)).events).toEqual([]);
      expect((await poll("agt_a", "p2", T0 + 2)).events).toEqual([]);
      expect(await s.nextLeaseExpiry({ agentId: "agt_a", now: T0 + 3, maxAttempts: MAX })).toBe(T0 + LEASE);
      expect(deliveries((await poll("agt_a", "p1", T0 + 4)).events)).toEqual(deliveries(first.events));
    });

    it("replays nothing of a delivery whose attempts were used up: its retire is the fresh poll's", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      let now = T0;
      for (let i = 1; i <= MAX; i++, now += LEASE) await poll("agt_a", `p${i}`, now);
      const r = await poll("agt_a", `p${MAX}`, now);
      expect([r.events, r.expiredLeases, r.newlyFailed]).toEqual([[], 1, 1]);
      expect((await s.getEvent(ev!.id))?.state).toBe("failed");
    });
  });
}
