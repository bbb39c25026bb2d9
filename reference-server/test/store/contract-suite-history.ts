/**
 * The store contract of the trace view's records (feature `trace-context`): an event's trace context kept
 * as enqueued and handed out by claims; its history written by the store itself on the transitions the
 * event row does not keep — renewal, release, a lease found ended (at reclaim, retirement or cancel),
 * failure, cancel — and nothing on a claim or an ack; the events a message caused and the cause of an event; a message's replies.
 * Called by runStoreContract on every store, plain and accelerated.
 */
import { describe, expect, it } from "vitest";
import type { EventTransition, Store } from "../../src/store/contract.js";
import { aMessage, events, T0, uid } from "./contract-fixtures.js";

const LEASE = 1000;
const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

export function runHistoryContract(store: () => Store): void {
  const claim = (agentId: string, now: number, maxAttempts = 3) =>
    store().claimEvents({ agentId, limit: 10, leaseMs: LEASE, maxAttempts, now });
  /** One event of a fresh agent, enqueued. */
  const oneEvent = async (over: Record<string, unknown> = {}) => {
    const agentId = uid("agt");
    const [ev] = events(agentId, "pod_h", 1);
    await store().enqueueEvents([{ ...ev!, ...over }]);
    return { agentId, id: ev!.id };
  };
  /** The history with the store's own clock (claims, renewals, releases: now, not T0-based) named. */
  const shape = async (id: string) =>
    (await store().eventHistory([id])).map((t: EventTransition) => ({
      ...t,
      at: Math.abs(t.at - Date.now()) < 60_000 ? "store clock" : t.at,
    }));
  const row = (kind: EventTransition["kind"], attempt: number, over: Partial<EventTransition> = {}) => ({
    kind,
    attempt,
    leaseWas: null,
    leaseExpiresAt: null,
    reason: null,
    byKind: null,
    byId: null,
    ...over,
  });
  /** By instant, and rows of one instant (which the dialects' triggers may write in either order) by kind. */
  const ordered = <T extends { at: number | string; kind: string }>(rows: T[]) =>
    [...rows].sort((a, b) => (a.at === b.at ? a.kind.localeCompare(b.kind) : Number(a.at) - Number(b.at)));

  describe("trace records", () => {
    it("keeps an event's trace context as enqueued and hands it out with each claim", async () => {
      const { agentId, id } = await oneEvent({ traceparent: TP, tracestate: "a=1" });
      expect(await store().getEvent(id)).toMatchObject({ traceparent: TP, tracestate: "a=1" });
      const [claimed] = (await claim(agentId, T0)).events;
      expect(claimed).toMatchObject({ id, traceparent: TP, tracestate: "a=1" });
      const plain = await oneEvent();
      expect(await store().getEvent(plain.id)).toMatchObject({ traceparent: null, tracestate: null });
    });

    it("records a renewal, a release and a lease found ended at the next claim; no claim, no ack", async () => {
      const s = store();
      const { agentId, id } = await oneEvent();
      await claim(agentId, T0);
      expect(await s.eventHistory([id])).toEqual([]);
      await s.renewLease({ agentId, eventId: id, attempts: 1, leaseMs: LEASE, now: T0 + 100 });
      const release = { agentId, eventId: id, attempts: 1, availableAt: T0 + 200, reason: "busy" };
      await s.releaseEvent({ ...release, maxAttempts: 3, now: T0 + 200 });
      await claim(agentId, T0 + 300);
      await claim(agentId, T0 + 5000);
      await s.ackEvent({ agentId, eventId: id, now: T0 + 5100, result: { outcome: "posted" } });
      expect(await shape(id)).toEqual([
        {
          eventId: id,
          at: "store clock",
          ...row("renewed", 1, { leaseWas: T0 + 1000, leaseExpiresAt: T0 + 1100 }),
        },
        {
          eventId: id,
          at: "store clock",
          ...row("released", 1, { leaseWas: T0 + 1100, leaseExpiresAt: T0 + 200, reason: "busy" }),
        },
        { eventId: id, at: T0 + 1300, ...row("expired", 2, { leaseWas: T0 + 1300 }) },
      ]);
    });

    it("records a retirement as the lease that ended and the failure, and a release of the last attempt", async () => {
      const s = store();
      const { agentId, id } = await oneEvent();
      await claim(agentId, T0, 1);
      await s.failExhausted({ now: T0 + 2000, maxAttempts: 1, agentId });
      await s.requeueEvent({ eventId: id, now: T0 + 2100 });
      await claim(agentId, T0 + 2200, 1);
      const release = { agentId, eventId: id, attempts: 2, availableAt: T0 + 2300, reason: "gave up" };
      expect((await s.releaseEvent({ ...release, maxAttempts: 1, now: T0 + 2300 })).status).toBe("failed");
      expect(ordered((await shape(id)).map(({ eventId, ...t }) => t))).toEqual([
        { at: T0 + 1000, ...row("expired", 1, { leaseWas: T0 + 1000 }) },
        { at: T0 + 1000, ...row("failed", 1, { leaseWas: T0 + 1000, reason: "max_attempts" }) },
        { at: T0 + 2300, ...row("failed", 2, { leaseWas: T0 + 3200, reason: "released" }) },
        { at: T0 + 2300, ...row("released", 2, { leaseWas: T0 + 3200, reason: "gave up" }) },
      ]);
    });

    it("records a cancel with its canceller, after the lease that had ended", async () => {
      const s = store();
      const { agentId, id } = await oneEvent();
      await claim(agentId, T0);
      const by = { kind: "human" as const, id: "usr_h" };
      await s.cancelEvent({ eventId: id, by, reason: "stop", maxAttempts: 3, now: T0 + 1500 });
      expect((await shape(id)).map(({ eventId, ...t }) => t)).toEqual([
        { at: T0 + 1000, ...row("expired", 1, { leaseWas: T0 + 1000 }) },
        {
          at: T0 + 1500,
          ...row("cancelled", 1, { leaseWas: T0 + 1000, reason: "stop", byKind: "human", byId: "usr_h" }),
        },
      ]);
      const held = await oneEvent();
      await claim(held.agentId, T0);
      await s.cancelEvent({ eventId: held.id, by, reason: "stop", maxAttempts: 3, now: T0 + 10 });
      expect((await shape(held.id)).map((t) => t.kind)).toEqual(["cancelled"]);
      expect(await s.eventHistory([])).toEqual([]);
    });

    it("finds the events a message caused, and the cause of an event", async () => {
      const s = store();
      const messageId = uid("msg");
      const [a, b] = events(uid("agt"), "pod_h", 2);
      const [injected] = events(uid("agt"), "pod_h", 1);
      await s.enqueueEvents([
        { ...a!, messageId },
        { ...b!, messageId },
      ]);
      await s.enqueueEvents([injected!]);
      expect((await s.messageEvents(messageId)).map((e) => e.id)).toEqual([a!.id, b!.id]);
      expect(await s.causeOf(a!.id)).toBe(messageId);
      expect(await s.causeOf(injected!.id)).toBeNull();
      expect(await s.causeOf("evt_nope")).toBeNull();
      expect(await s.messageEvents("msg_nope")).toEqual([]);
    });

    it("lists a message's replies: by the given agents, after it, replying to it or in its trace", async () => {
      const s = store();
      const podId = uid("pod");
      const agent = { kind: "agent" as const, id: "agt_r", name: "r" };
      const other = { kind: "agent" as const, id: "agt_o", name: "o" };
      const earlier = aMessage(podId, { author: agent, traceparent: TP });
      const root = aMessage(podId, { traceparent: TP, createdAt: T0 + 1 });
      const reply = aMessage(podId, { author: agent, replyToMessageId: root.id, createdAt: T0 + 2 });
      const traced = aMessage(podId, {
        author: agent,
        traceparent: TP,
        tracestate: "a=1",
        createdAt: T0 + 3,
      });
      const unrelated = aMessage(podId, { author: agent, createdAt: T0 + 4 });
      const byOther = aMessage(podId, { author: other, replyToMessageId: root.id, createdAt: T0 + 5 });
      for (const m of [earlier, root, reply, traced, unrelated, byOther]) await s.insertMessage(m);
      const replies = (traceId: string | null, limit = 10) =>
        s.listReplies({ podId, after: root.id, agentIds: [agent.id], traceId, limit });
      expect(await replies(TP.slice(3, 35))).toEqual([reply, traced]);
      expect(await replies(null)).toEqual([reply]);
      expect(await replies(TP.slice(3, 35), 1)).toEqual([reply]);
      expect(await s.listReplies({ podId, after: root.id, agentIds: [], traceId: null, limit: 10 })).toEqual(
        [],
      );
    });
  });
}
