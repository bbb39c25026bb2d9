/**
 * The store contract of cancellation (feature `cancel`): cancelEvent (an open event becomes terminal
 * `cancelled` at once, recording the delivery it held; settled events are left as they are; an exhausted
 * lease is retired instead), what the other verbs do with a cancelled event (never claimed or replayed,
 * never a failure, acked once and kept cancelled, renew and release lost with the reason), the watch's
 * read (cancellationOf), the double-texting cancel (cancelHeldEvents), the sweep's read (cancelledAmong),
 * `supersedes`, updateInstallation, and the cancel announcement on the change feed after commit.
 * Called by runStoreContract on every store, plain and accelerated.
 */
import { describe, expect, it } from "vitest";
import type { Canceller, Store, StoreChange } from "../../src/store/contract.js";
import { eventually } from "../../src/testing/deadline.js";
import { aWorld, events, T0 } from "./contract-fixtures.js";

const LEASE = 1000;
const MAX = 3;
const HUMAN: Canceller = { kind: "human", id: "usr_h" };

export function runCancelContract(store: () => Store): void {
  const claim = (agentId: string, now: number, limit = 10, pollId?: string) =>
    store().claimEvents({ agentId, limit, leaseMs: LEASE, maxAttempts: MAX, now, pollId });
  const cancel = (eventId: string, now: number, over: Partial<Parameters<Store["cancelEvent"]>[0]> = {}) =>
    store().cancelEvent({ eventId, by: HUMAN, reason: "wrong repo", maxAttempts: MAX, now, ...over });
  const cancels = () => {
    const seen: StoreChange[] = [];
    const off = store().changes.subscribe((c) => {
      if (c.kind === "cancel") seen.push(c);
    });
    return { seen, off };
  };

  describe("cancel", () => {
    it("makes a pending event cancelled at once, with its reason, time and canceller, and announces it", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      const heard = cancels();
      expect(await cancel(ev!.id, T0 + 5)).toEqual({
        status: "cancelled",
        changed: true,
        agentId: "agt_a",
        podId: "pod_a",
      });
      expect(await s.getEvent(ev!.id)).toMatchObject({
        state: "cancelled",
        attempts: 0,
        cancelReason: "wrong repo",
        cancelledAt: T0 + 5,
        cancelledByKind: "human",
        cancelledById: "usr_h",
        cancelledAttempts: null,
      });
      await eventually(() => heard.seen.length === 1, "the cancel is announced");
      expect(heard.seen).toEqual([{ kind: "cancel", agentId: "agt_a", eventId: ev!.id }]);
      heard.off();
      expect((await claim("agt_a", T0 + 10)).events).toEqual([]);
    });

    it("cancels a held delivery keeping attempts and lease, and records it as the cancelled delivery", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      expect((await cancel(ev!.id, T0 + 100, { agentId: "agt_a" })).status).toBe("cancelled");
      expect(await s.getEvent(ev!.id)).toMatchObject({
        state: "cancelled",
        attempts: 1,
        leaseExpiresAt: T0 + LEASE,
        cancelledAttempts: 1,
      });
      // Never delivered again: not while the lease would have run, not after it would have ended.
      expect((await claim("agt_a", T0 + 200)).events).toEqual([]);
      expect((await claim("agt_a", T0 + 10 * LEASE)).events).toEqual([]);
      expect(await s.nextLeaseExpiry({ agentId: "agt_a", now: T0 + 200, maxAttempts: MAX })).toBeNull();
    });

    it("treats a released delivery and an ended lease as pending: no delivery recorded as held", async () => {
      const s = store();
      const [a, b] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([a!, b!]);
      await claim("agt_a", T0);
      await s.releaseEvent({
        agentId: "agt_a",
        eventId: a!.id,
        attempts: 1,
        availableAt: T0 + 5000,
        reason: null,
        maxAttempts: MAX,
        now: T0 + 10,
      });
      expect(await cancel(a!.id, T0 + 20)).toMatchObject({ changed: true });
      expect(await cancel(b!.id, T0 + LEASE + 1)).toMatchObject({ changed: true });
      expect((await s.getEvent(a!.id))?.cancelledAttempts).toBeNull();
      expect((await s.getEvent(b!.id))?.cancelledAttempts).toBeNull();
    });

    it("changes nothing on an acked, failed or cancelled event and answers its state", async () => {
      const s = store();
      const [acked, failed, twice] = events("agt_a", "pod_a", 3);
      await s.enqueueEvents([acked!, failed!, twice!]);
      await s.ackEvent({ agentId: "agt_a", eventId: acked!.id, now: T0, result: null });
      await s.failOpenEvents({ agentId: "agt_a", podId: "pod_a", now: T0, reason: "uninstalled" });
      // failOpenEvents failed `twice` as well; requeue it so it can be cancelled.
      await s.requeueEvent({ eventId: twice!.id, now: T0 + 1 });
      await cancel(twice!.id, T0 + 2, { reason: "first" });
      const heard = cancels();
      expect(await cancel(acked!.id, T0 + 3)).toMatchObject({ status: "acked", changed: false });
      expect(await cancel(failed!.id, T0 + 3)).toMatchObject({ status: "failed", changed: false });
      expect(await cancel(twice!.id, T0 + 3, { reason: "second" })).toMatchObject({
        status: "cancelled",
        changed: false,
      });
      expect(await s.getEvent(twice!.id)).toMatchObject({ cancelReason: "first", cancelledAt: T0 + 2 });
      expect((await s.getEvent(acked!.id))?.state).toBe("acked");
      expect((await s.getEvent(failed!.id))?.state).toBe("failed");
      await new Promise((r) => setTimeout(r, 20));
      expect(heard.seen).toEqual([]);
      heard.off();
    });

    it("retires an exhausted lease as failed instead of cancelling it", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      for (let i = 0; i < MAX; i++) await claim("agt_a", T0 + i * LEASE);
      expect(await cancel(ev!.id, T0 + MAX * LEASE)).toMatchObject({ status: "failed", changed: false });
      expect(await s.getEvent(ev!.id)).toMatchObject({ state: "failed", failReason: "max_attempts" });
    });

    it("finds only an event of the given agent or pod, else not_found", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      expect(await cancel(ev!.id, T0, { agentId: "agt_b" })).toEqual({ status: "not_found" });
      expect(await cancel(ev!.id, T0, { podId: "pod_b" })).toEqual({ status: "not_found" });
      expect(await cancel("evt_unknown", T0)).toEqual({ status: "not_found" });
      expect((await s.getEvent(ev!.id))?.state).toBe("pending");
      expect(await cancel(ev!.id, T0, { agentId: "agt_a", podId: "pod_a" })).toMatchObject({ changed: true });
    });

    it("is never a failure: not retired, not a dead letter, not requeued, not failed by an uninstall", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      await cancel(ev!.id, T0 + 1);
      expect(await s.failExhausted({ now: T0 + 100 * LEASE, maxAttempts: 1 })).toBe(0);
      expect(await s.listDeadLetters({ limit: 10 })).toEqual([]);
      expect((await s.requeueEvent({ eventId: ev!.id, now: T0 + 2 })).status).toBe("not_failed");
      expect(await s.failOpenEvents({ agentId: "agt_a", podId: "pod_a", now: T0 + 3, reason: "x" })).toBe(0);
      expect(await s.queueStats()).toMatchObject({ cancelled: 1, failed: 0, leased: 0 });
    });

    it("acks a cancelled event once, recording its result, and keeps it cancelled", async () => {
      const s = store();
      const [a, b] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([a!, b!]);
      await claim("agt_a", T0);
      await cancel(a!.id, T0 + 1);
      await cancel(b!.id, T0 + 1);
      expect(
        await s.ackEvent({ agentId: "agt_a", eventId: a!.id, now: T0 + 2, result: { outcome: "cancelled" } }),
      ).toBe(true);
      expect(
        await s.ackEvent({ agentId: "agt_a", eventId: a!.id, now: T0 + 3, result: { outcome: "x" } }),
      ).toBe(true);
      expect(await s.ackEvent({ agentId: "agt_b", eventId: a!.id, now: T0 + 3, result: null })).toBe(false);
      expect(await s.getEvent(a!.id)).toMatchObject({
        state: "cancelled",
        ackedAt: T0 + 2,
        result: { outcome: "cancelled" },
      });
      expect(
        await s.ackEvents({
          agentId: "agt_a",
          items: [
            { eventId: b!.id, result: { outcome: "cancelled" } },
            { eventId: b!.id, result: { outcome: "late" } },
          ],
          now: T0 + 4,
        }),
      ).toEqual([true, true]);
      expect(await s.getEvent(b!.id)).toMatchObject({
        state: "cancelled",
        ackedAt: T0 + 4,
        result: { outcome: "cancelled" },
      });
    });

    it("answers a renew or release of a cancelled delivery lease_lost with the cancel reason", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      await cancel(ev!.id, T0 + 1, { reason: "superseded" });
      const lost = { status: "lease_lost", cancelled: { reason: "superseded" } };
      expect(
        await s.renewLease({ agentId: "agt_a", eventId: ev!.id, attempts: 1, leaseMs: LEASE, now: T0 + 2 }),
      ).toEqual(lost);
      expect(
        await s.releaseEvent({
          agentId: "agt_a",
          eventId: ev!.id,
          attempts: 1,
          availableAt: T0 + 2,
          reason: null,
          maxAttempts: MAX,
          now: T0 + 2,
        }),
      ).toEqual(lost);
      expect(
        await s.renewLease({ agentId: "agt_b", eventId: ev!.id, attempts: 1, leaseMs: LEASE, now: T0 + 2 }),
      ).toEqual({ status: "not_found" });
      expect(await s.getEvent(ev!.id)).toMatchObject({ state: "cancelled", leaseExpiresAt: T0 + LEASE });
    });

    it("answers a replayed poll whose held delivery was cancelled as a fresh poll", async () => {
      const s = store();
      const [a, b] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([a!]);
      await claim("agt_a", T0, 10, "p1");
      await cancel(a!.id, T0 + 1);
      await s.enqueueEvents([b!]);
      expect((await claim("agt_a", T0 + 2, 10, "p1")).events.map((e) => e.id)).toEqual([b!.id]);
    });

    it("keeps the next claim right after a cancel in the middle of the queue (idle marks, claim floors)", async () => {
      const s = store();
      const [a, b, c, d] = events("agt_a", "pod_a", 4);
      await s.enqueueEvents([a!, b!, c!]);
      expect((await claim("agt_a", T0, 1)).events.map((e) => e.id)).toEqual([a!.id]);
      await cancel(b!.id, T0 + 1);
      expect((await claim("agt_a", T0 + 2, 1)).events.map((e) => e.id)).toEqual([c!.id]);
      await cancel(a!.id, T0 + 3);
      await cancel(c!.id, T0 + 3);
      expect((await claim("agt_a", T0 + 4)).events).toEqual([]);
      await s.enqueueEvents([d!]);
      expect((await claim("agt_a", T0 + 5)).events.map((e) => e.id)).toEqual([d!.id]);
    });
  });

  describe("the watch's read (cancellationOf)", () => {
    const of = (eventId: string, attempts: number, now: number, agentId = "agt_a") =>
      store().cancellationOf({ agentId, eventId, attempts, now });

    it("says held for the delivery holding its lease, cancelled once it is cancelled, lease_lost for others", async () => {
      const s = store();
      const [ev] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([ev!]);
      await claim("agt_a", T0);
      expect(await of(ev!.id, 1, T0 + 1)).toEqual({ status: "held", leaseExpiresAt: T0 + LEASE });
      expect(await of(ev!.id, 2, T0 + 1)).toEqual({ status: "lease_lost" });
      expect(await of(ev!.id, 1, T0 + LEASE)).toEqual({ status: "lease_lost" });
      expect(await of(ev!.id, 1, T0 + 1, "agt_b")).toEqual({ status: "not_found" });
      expect(await of("evt_unknown", 1, T0 + 1)).toEqual({ status: "not_found" });
      await cancel(ev!.id, T0 + 2, { reason: "stop" });
      expect(await of(ev!.id, 1, T0 + 3)).toEqual({
        status: "cancelled",
        reason: "stop",
        cancelledAt: T0 + 2,
      });
      // Long after the lease would have ended it is still that delivery that was cancelled.
      expect(await of(ev!.id, 1, T0 + 100 * LEASE)).toEqual({
        status: "cancelled",
        reason: "stop",
        cancelledAt: T0 + 2,
      });
      expect(await of(ev!.id, 2, T0 + 3)).toEqual({ status: "lease_lost" });
    });

    it("says lease_lost for an acked or released delivery, and for an event cancelled while no delivery was held", async () => {
      const s = store();
      const [acked, released, pending] = events("agt_a", "pod_a", 3);
      await s.enqueueEvents([acked!, released!, pending!]);
      await claim("agt_a", T0, 2);
      await s.ackEvent({ agentId: "agt_a", eventId: acked!.id, now: T0 + 1, result: null });
      await s.releaseEvent({
        agentId: "agt_a",
        eventId: released!.id,
        attempts: 1,
        availableAt: T0 + 5000,
        reason: null,
        maxAttempts: MAX,
        now: T0 + 1,
      });
      await cancel(pending!.id, T0 + 2);
      expect(await of(acked!.id, 1, T0 + 3)).toEqual({ status: "lease_lost" });
      expect(await of(released!.id, 1, T0 + 3)).toEqual({ status: "lease_lost" });
      expect(await of(pending!.id, 1, T0 + 3)).toEqual({ status: "lease_lost" });
    });

    it("lists which of some events are cancelled", async () => {
      const s = store();
      const [a, b, c] = events("agt_a", "pod_a", 3);
      await s.enqueueEvents([a!, b!, c!]);
      await cancel(a!.id, T0);
      await cancel(c!.id, T0);
      expect((await s.cancelledAmong([a!.id, b!.id, c!.id, "evt_unknown"])).sort()).toEqual(
        [a!.id, c!.id].sort(),
      );
      expect(await s.cancelledAmong([])).toEqual([]);
    });
  });

  describe("double texting (cancelHeldEvents) and supersedes", () => {
    it("cancels only the deliveries the listed agents hold of the pod's events, announcing each", async () => {
      const s = store();
      const [heldA, pendingA] = events("agt_a", "pod_a", 2);
      const [otherPod] = events("agt_a", "pod_b", 1);
      const [heldB] = events("agt_b", "pod_a", 1);
      const [heldC] = events("agt_c", "pod_a", 1);
      const [releasedA] = events("agt_a", "pod_a", 1);
      await s.enqueueEvents([heldA!, otherPod!, heldB!, heldC!, releasedA!]);
      await claim("agt_a", T0);
      await claim("agt_b", T0);
      await claim("agt_c", T0);
      await s.releaseEvent({
        agentId: "agt_a",
        eventId: releasedA!.id,
        attempts: 1,
        availableAt: T0 + 5000,
        reason: null,
        maxAttempts: MAX,
        now: T0 + 1,
      });
      await s.enqueueEvents([pendingA!]);
      const heard = cancels();
      const by: Canceller = { kind: "kernel", id: "double-texting" };
      const done = await s.cancelHeldEvents({
        agentIds: ["agt_a", "agt_b", "agt_a"],
        podId: "pod_a",
        by,
        reason: "superseded",
        now: T0 + 2,
      });
      expect(done.map((d) => [d.agentId, d.eventId]).sort()).toEqual(
        [
          ["agt_a", heldA!.id],
          ["agt_b", heldB!.id],
        ].sort(),
      );
      expect(await s.getEvent(heldA!.id)).toMatchObject({
        state: "cancelled",
        cancelReason: "superseded",
        cancelledByKind: "kernel",
        cancelledById: "double-texting",
        cancelledAttempts: 1,
      });
      for (const untouched of [pendingA!, releasedA!])
        expect((await s.getEvent(untouched.id))?.state).not.toBe("cancelled");
      expect((await s.getEvent(otherPod!.id))?.state).toBe("leased");
      expect((await s.getEvent(heldC!.id))?.state).toBe("leased");
      await eventually(() => heard.seen.length === 2, "both cancels are announced");
      heard.off();
      expect(
        await s.cancelHeldEvents({ agentIds: [], podId: "pod_a", by, reason: "superseded", now: T0 + 3 }),
      ).toEqual([]);
    });

    it("keeps an event's supersedes and hands it out with the event", async () => {
      const s = store();
      const [plain, superseding] = events("agt_a", "pod_a", 2);
      await s.enqueueEvents([plain!, { ...superseding!, supersedes: ["evt_x", "evt_y"] }]);
      const claimed = await claim("agt_a", T0);
      expect(claimed.events.map((e) => e.supersedes)).toEqual([null, ["evt_x", "evt_y"]]);
      expect((await s.getEvent(superseding!.id))?.supersedes).toEqual(["evt_x", "evt_y"]);
      expect((await s.getEvent(plain!.id))?.supersedes).toBeNull();
    });

    it("sets an active installation's double-texting policy, and lists it so", async () => {
      const s = store();
      const { installation, pod } = await aWorld(s);
      expect(installation.doubleTexting).toBe("enqueue");
      expect((await s.listInstallations({ podId: pod.id, activeOnly: true }))[0]?.doubleTexting).toBe(
        "enqueue",
      );
      const updated = await s.updateInstallation({ id: installation.id, doubleTexting: "interrupt" });
      expect(updated).toMatchObject({ id: installation.id, doubleTexting: "interrupt" });
      expect((await s.listInstallations({ podId: pod.id, activeOnly: true }))[0]?.doubleTexting).toBe(
        "interrupt",
      );
      expect((await s.findActiveInstallation(installation.agentId, pod.id))?.doubleTexting).toBe("interrupt");
      await s.markInstallationUninstalled({ id: installation.id, now: T0 + 1, by: "usr_x" });
      expect(await s.updateInstallation({ id: installation.id, doubleTexting: "enqueue" })).toBeNull();
      expect(await s.updateInstallation({ id: "ins_unknown", doubleTexting: "enqueue" })).toBeNull();
    });
  });
}
