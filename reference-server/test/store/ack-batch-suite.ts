/**
 * Single acks sent in one event-loop turn are group-committed by the SQLite store (sqlite/ack-batch.ts);
 * each must still settle exactly as it would alone. (Tried on PostgreSQL too: one unnest UPDATE per
 * batch drained slower than single statements, whose commits PostgreSQL already groups.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/contract.js";
import { anIdentity, aWorld, events, T0 } from "./contract-fixtures.js";

/** `open(path)` opens the store on that file (`:memory:` when no path is given). */
export function groupCommitSuite(name: string, open: (path?: string) => Promise<Store>) {
  describe(`${name} group commit of single acks`, () => {
    it("settles acks sent in one turn exactly as one at a time: first wins, foreign and unknown ids get false", async () => {
      const store = await open();
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
      expect(answers).toEqual([true, true, true, true, true, true, true, false, false]);
      const settled = await Promise.all(held.map((e) => store.getEvent(e.id)));
      expect(settled.map((e) => [e?.state, e?.result])).toEqual(
        held.map((_, i) => ["acked", { outcome: `r${i}` }]),
      );
      await store.close();
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
