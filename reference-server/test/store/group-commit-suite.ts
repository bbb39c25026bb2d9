/**
 * The hot writes sent in one event-loop turn (claims, acks, batch acks, renewals, releases) are
 * group-committed by the SQLite store (sqlite/group-commit.ts); each must still settle exactly as it
 * would alone. (Tried on PostgreSQL too: one unnest UPDATE per
 * batch drained slower than single statements, whose commits PostgreSQL already groups.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type NewEvent, type Store, StoreUnavailableError } from "../../src/store/contract.js";
import type { DeliveredEvent } from "../../src/store/records.js";
import { anIdentity, aWorld, events, onReady, T0 } from "./contract-fixtures.js";

/** A world whose agent holds `n` claimed events (30 s leases). */
async function holding(store: Store, n: number) {
  const { agent, pod } = await aWorld(store);
  await store.enqueueEvents(events(agent.id, pod.id, n));
  const { events: held } = await store.claimEvents({
    agentId: agent.id,
    limit: n,
    leaseMs: 30_000,
    maxAttempts: 5,
    now: T0,
  });
  return { agent, pod, held };
}

export function groupCommitSuite(
  name: string,
  open: (path?: string, options?: { busyTimeoutMs?: number }) => Promise<Store>,
) {
  describe(`${name} group commit of the hot writes`, () => {
    it("settles acks sent in one turn exactly as one at a time: first wins, foreign and unknown ids get false", async () => {
      const store = await open();
      const { agent, held } = await holding(store, 6);
      const other = await anIdentity(store, "someone-else");
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
      expect(answers).toEqual([true, true, true, true, true, true, true, false, false]);
      const settled = await Promise.all(held.map((e) => store.getEvent(e.id)));
      expect(settled.map((e) => [e?.state, e?.result])).toEqual(
        held.map((_, i) => ["acked", { outcome: `r${i}` }]),
      );
      await store.close();
    });

    it("runs claims, acks, batch acks and renewals of one turn in arrival order, each with its own answer", async () => {
      const store = await open();
      const { agent, pod } = await aWorld(store);
      const other = await anIdentity(store, "someone-else");
      await store.enqueueEvents([...events(agent.id, pod.id, 4), ...events(other.id, pod.id, 2)]);
      const claim = (agentId: string, limit: number) =>
        store.claimEvents({ agentId, limit, leaseMs: 30_000, maxAttempts: 5, now: T0 });
      // Issued in one turn: the two claims of one agent must not hand out the same event.
      const [a1, a2, o1] = await Promise.all([claim(agent.id, 2), claim(agent.id, 5), claim(other.id, 5)]);
      expect(a1.events.map((e) => e.id)).toHaveLength(2);
      expect(a2.events.map((e) => e.id)).toHaveLength(2);
      expect(new Set([...a1.events, ...a2.events].map((e) => e.id)).size).toBe(4);
      expect(o1.events).toHaveLength(2);
      const [e1, e2] = a1.events as [DeliveredEvent, DeliveredEvent];
      const [renewed, single, many, lost] = await Promise.all([
        store.renewLease({ agentId: agent.id, eventId: e1.id, attempts: 1, leaseMs: 60_000, now: T0 + 1 }),
        store.ackEvent({ agentId: agent.id, eventId: e2.id, now: T0 + 1, result: null }),
        store.ackEvents({
          agentId: agent.id,
          now: T0 + 1,
          items: [
            { eventId: e1.id, result: { outcome: "many" } },
            { eventId: e2.id, result: { outcome: "late" } }, // acked by the single ack issued before it
            { eventId: o1.events[0]!.id, result: null }, // another agent's
          ],
        }),
        // Renewed after the batch ack above, in arrival order: the event is acked by then.
        store.renewLease({ agentId: agent.id, eventId: e1.id, attempts: 1, leaseMs: 60_000, now: T0 + 2 }),
      ]);
      expect(renewed).toEqual({ status: "renewed", leaseExpiresAt: T0 + 1 + 60_000 });
      expect(single).toBe(true);
      expect(many).toEqual([true, true, false]);
      expect(lost.status).toBe("lease_lost");
      expect((await store.getEvent(e1.id))?.result).toEqual({ outcome: "many" });
      expect((await store.getEvent(e2.id))?.result).toBeNull();
      expect((await store.getEvent(o1.events[0]!.id))?.state).toBe("leased");
      await store.close();
    });

    it("fails only the op that throws: the others of its turn commit and answer", async () => {
      const store = await open();
      const { agent, held } = await holding(store, 3);
      const [first, bad, last] = await Promise.allSettled([
        store.ackEvent({ agentId: agent.id, eventId: held[0]!.id, now: T0, result: { n: 1 } }),
        // A result that cannot be stored (JSON.stringify throws on a BigInt) fails inside the batch.
        store.ackEvent({ agentId: agent.id, eventId: held[1]!.id, now: T0, result: { n: 10n } as never }),
        store.ackEvent({ agentId: agent.id, eventId: held[2]!.id, now: T0, result: { n: 3 } }),
      ]);
      expect(first).toEqual({ status: "fulfilled", value: true });
      expect(bad.status).toBe("rejected");
      expect(last).toEqual({ status: "fulfilled", value: true });
      const states = await Promise.all(held.map((e) => store.getEvent(e.id)));
      expect(states.map((e) => e?.state)).toEqual(["acked", "leased", "acked"]);
      await store.close();
    });

    it("runs the transactions of one turn with its hot writes in one commit: in arrival order, answered after it", async () => {
      const store = await open();
      const { agent, pod } = await aWorld(store);
      const log: string[] = [];
      onReady(store, (id) => log.push(`ready ${id === agent.id ? "agent" : id}`));
      const [e1, e2] = events(agent.id, pod.id, 2) as [NewEvent, NewEvent];
      const enqueueIn = (e: NewEvent, name: string) =>
        store
          .transaction(async (tx) => {
            await tx.enqueueEvents([e]);
            log.push(`body ${name}`);
            return name;
          })
          .then((v) => {
            log.push(`answer ${v}`);
            return v;
          });
      const [t1, claimed, t2] = await Promise.all([
        enqueueIn(e1, "t1"),
        // Arrival order: the claim sees what t1 wrote, not what t2 writes after it.
        store.claimEvents({ agentId: agent.id, limit: 10, leaseMs: 30_000, maxAttempts: 5, now: T0 }),
        enqueueIn(e2, "t2"),
      ]);
      expect([t1, t2]).toEqual(["t1", "t2"]);
      expect(claimed.events.map((e) => e.id)).toEqual([e1.id]);
      // Nobody is answered, and nobody woken, before the last write of the turn has run and committed.
      expect(log).toEqual(["body t1", "body t2", "ready agent", "answer t1", "answer t2"]);
      expect((await store.getEvent(e2.id))?.state).toBe("pending");
      await store.close();
    });

    it("lets the writes of the next turn join the batch: one commit for the requests of two poll phases", async () => {
      const store = await open();
      const { agent, pod } = await aWorld(store);
      const [e1, e2] = events(agent.id, pod.id, 2) as [NewEvent, NewEvent];
      const log: string[] = [];
      const write = (e: NewEvent, name: string) =>
        store
          .transaction(async (tx) => {
            await tx.enqueueEvents([e]);
            log.push(`body ${name}`);
          })
          .then(() => log.push(`answer ${name}`));
      const first = write(e1, "t1");
      await new Promise((r) => setImmediate(r)); // a turn later, as the next poll phase's request would be
      const second = write(e2, "t2");
      await Promise.all([first, second]);
      expect(log).toEqual(["body t1", "body t2", "answer t1", "answer t2"]);
      await store.close();
    });

    it("undoes only the transaction that throws: the others of its turn commit", async () => {
      const store = await open();
      const { agent, pod } = await aWorld(store);
      const [e1, e2, e3] = events(agent.id, pod.id, 3) as [NewEvent, NewEvent, NewEvent];
      const [first, bad, last] = await Promise.allSettled([
        store.transaction((tx) => tx.enqueueEvents([e1])),
        store.transaction(async (tx) => {
          await tx.enqueueEvents([e2]);
          throw new Error("refused after writing");
        }),
        store.transaction((tx) => tx.enqueueEvents([e3])),
      ]);
      expect(first.status).toBe("fulfilled");
      expect(bad).toEqual({ status: "rejected", reason: new Error("refused after writing") });
      expect(last.status).toBe("fulfilled");
      const found = await Promise.all([e1, e2, e3].map((e) => store.getEvent(e.id)));
      expect(found.map((e) => e?.state ?? "absent")).toEqual(["pending", "absent", "pending"]);
      await store.close();
    });

    it("reports an outage to every write of a turn that could not begin, and writes none of them", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cap-group-busy-"));
      try {
        const file = join(dir, "cap.db");
        const store = await open(file, { busyTimeoutMs: 20 });
        const { agent, held } = await holding(store, 1);
        const [e] = events(agent.id, held[0]!.podId, 1) as [NewEvent];
        const other = new Database(file);
        other.exec("BEGIN IMMEDIATE"); // another process holds the write lock
        const answers = await Promise.allSettled([
          store.transaction((tx) => tx.enqueueEvents([e])),
          store.ackEvent({ agentId: agent.id, eventId: held[0]!.id, now: T0, result: null }),
        ]);
        other.exec("ROLLBACK");
        other.close();
        for (const a of answers) {
          expect(a.status).toBe("rejected");
          expect((a as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
        }
        expect(await store.getEvent(e.id)).toBeNull();
        expect((await store.getEvent(held[0]!.id))?.state).toBe("leased");
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("writes acks queued when the store closes before it closes", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cap-ack-close-"));
      try {
        const file = join(dir, "cap.db");
        const store = await open(file);
        const { agent, pod } = await aWorld(store);
        await store.enqueueEvents(events(agent.id, pod.id, 1));
        const [e] = (
          await store.claimEvents({ agentId: agent.id, limit: 1, leaseMs: 30_000, maxAttempts: 5, now: T0 })
        ).events;
        const acked = store.ackEvent({ agentId: agent.id, eventId: e!.id, now: T0, result: null });
        await store.close();
        expect(await acked).toBe(true);
        const reopened = await open(file);
        expect((await reopened.getEvent(e!.id))?.state).toBe("acked");
        await reopened.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
