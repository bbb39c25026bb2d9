/**
 * Concurrency across replicas (issue 3): 16 pollers of one agent, split over two `cap-kernel serve`
 * processes on one PostgreSQL, under a steady stream of new events for a configurable time
 * (CAP_TEST_LOAD_SECONDS; default 20 s, 60 s with CAP_TEST_LONG=1). Leases are 1 s and pollers drop
 * a few deliveries unacked, so redelivery races with claims on both replicas all the time.
 *
 * Every delivery is recorded with its lease window [leaseExpiresAt − lease, leaseExpiresAt]; at the end no
 * two deliveries of one event may overlap (no event held by two pollers inside one lease), and the
 * kernel's own state (read from the database) must show every event acked exactly once — one row, state
 * acked — and nothing else left in the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ack,
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
  sql,
  stopAll,
} from "./harness.js";

const SECONDS = Number(process.env.CAP_TEST_LOAD_SECONDS ?? (process.env.CAP_TEST_LONG === "1" ? 60 : 20));
const POLLERS = 16;
const LEASE_MS = 1000;
const DROP_RATE = 0.03;
const MAX_BACKLOG = 300;

interface Delivery {
  id: string;
  attempts: number;
  poller: number;
  leaseEnd: number;
}

describe.skipIf(!PG_URL)(`16 pollers on two PostgreSQL replicas under load${SKIP_REASON}`, () => {
  let db = "";
  let replicas: KernelProcess[] = [];
  let world: Provisioned;

  beforeAll(async () => {
    db = await createDatabase("cap_load");
    world = await provision(db, ["--admin", "ops", "--pod", "load", "--agent", "worker@load"]);
    // All 16 pollers poll as one agent with one token: lift its cap of waiting polls (default 8).
    const opts = {
      leaseSeconds: LEASE_MS / 1000,
      maxAttempts: 1000,
      args: ["--max-long-polls-per-token", String(POLLERS)],
    };
    replicas = await Promise.all([KernelProcess.start(db, opts), KernelProcess.start(db, opts)]);
  });
  afterAll(async () => {
    await stopAll();
    if (db) await dropDatabase(db);
  });

  it(
    `never lets two pollers hold one event inside a lease, and ends with every event acked once (${SECONDS} s)`,
    async () => {
      const agent = world.agents[0]!;
      const human = world.users[0]!.token;
      const emitted = new Set<string>();
      const acked = new Set<string>();
      const deliveries: Delivery[] = [];
      let loading = true;
      let polling = true;
      const errors: string[] = [];

      const producer = async (r: KernelProcess, n: number) => {
        let i = 0;
        while (loading) {
          if (emitted.size - acked.size >= MAX_BACKLOG) {
            await new Promise((res) => setTimeout(res, 5));
            continue;
          }
          emitted.add(
            await emit(r.url, human, { agentName: agent.name, podId: agent.podId, payload: { n, i: i++ } }),
          );
        }
      };
      const poller = async (r: KernelProcess, p: number) => {
        while (polling) {
          const events = await poll(r.url, agent.token, 5, 1);
          for (const e of events) {
            deliveries.push({
              id: e.id,
              attempts: e.attempts,
              poller: p,
              leaseEnd: Date.parse(e.leaseExpiresAt!),
            });
          }
          for (const e of events) {
            if (loading && Math.random() < DROP_RATE) continue; // a handler that died: the lease must expire
            const res = await ack(r.url, agent.token, e.id);
            if (res.status === 200) acked.add(e.id);
            else errors.push(`ack ${e.id} → ${res.status}`);
          }
        }
      };

      const started = performance.now();
      const pollers = Array.from({ length: POLLERS }, (_, p) => poller(replicas[p % 2]!, p));
      const producers = [0, 1, 2, 3].map((n) => producer(replicas[n % 2]!, n));
      await eventually(() => performance.now() - started >= SECONDS * 1000, "the load period to end", {
        timeoutMs: SECONDS * 1000 + 5000,
        everyMs: 100,
      });
      loading = false;
      await Promise.all(producers);
      await eventually(() => [...emitted].every((id) => acked.has(id)), "every emitted event to be acked", {
        timeoutMs: 60_000,
        everyMs: 50,
      });
      polling = false;
      await Promise.all(pollers);
      const elapsed = (performance.now() - started) / 1000;

      // No two deliveries of one event overlap in time, and no delivery number repeats.
      const byEvent = new Map<string, Delivery[]>();
      for (const d of deliveries) byEvent.set(d.id, [...(byEvent.get(d.id) ?? []), d]);
      const overlaps: string[] = [];
      for (const [id, ds] of byEvent) {
        ds.sort((a, b) => a.attempts - b.attempts);
        for (let i = 1; i < ds.length; i++) {
          const prev = ds[i - 1]!;
          const cur = ds[i]!;
          if (cur.attempts === prev.attempts || cur.leaseEnd - LEASE_MS < prev.leaseEnd) {
            overlaps.push(
              `${id}: #${prev.attempts} (poller ${prev.poller}) and #${cur.attempts} (poller ${cur.poller})`,
            );
          }
        }
      }

      // The kernel's state: every event we enqueued is there once, acked; nothing else is in the queue.
      const rows = await sql<{ id: string; state: string; acked_at: string | null }>(
        db,
        "SELECT id, state, acked_at FROM events",
      );
      const states = new Map(rows.map((r) => [r.id, r]));
      const notAcked = [...emitted].filter(
        (id) => states.get(id)?.state !== "acked" || !states.get(id)?.acked_at,
      );
      const redelivered = [...byEvent.values()].filter((ds) => ds.length > 1).length;
      console.info(
        `replica load: ${elapsed.toFixed(1)} s, ${emitted.size} events, ${deliveries.length} deliveries ` +
          `(${redelivered} events redelivered after a dropped lease), ${overlaps.length} overlapping leases, ` +
          `${(acked.size / elapsed).toFixed(0)} events acked/s`,
      );
      expect(errors).toEqual([]);
      expect(overlaps).toEqual([]);
      expect(rows).toHaveLength(emitted.size);
      expect(notAcked).toEqual([]);
      expect(new Set(deliveries.map((d) => d.id))).toEqual(emitted);
      expect(redelivered).toBeGreaterThan(0);
    },
    SECONDS * 1000 + 180_000,
  );
});
