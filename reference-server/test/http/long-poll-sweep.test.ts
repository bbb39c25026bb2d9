/**
 * The shared backstop on SQLite (one process) queries the store only when another connection has written
 * the file: every in-process write that readies an event wakes its polls directly, so 2,000 parked polls
 * cost no sweep queries. A write from elsewhere (`cap-kernel emit --db …` from another process; here a
 * second connection to the same file) is still found by the next sweep. And a lease taken by a poll that
 * does not wait is a ready instant for the poll of that agent that does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/contract.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";

const WAIT_S = 10;

/** Counts the calls of one method of the store (or of its change feed), keeping its behaviour. */
function count(store: Store, method: "readyInstants" | "readyComplete"): { n: number } {
  const counter = { n: 0 };
  const target = (method === "readyComplete" ? store.changes : store) as unknown as Record<string, unknown>;
  const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
  target[method] = (...args: unknown[]) => {
    counter.n++;
    return original(...args);
  };
  return counter;
}

/** An enqueue through a second connection to the file: what another process writing it looks like. */
async function enqueueElsewhere(file: string, w: World, id: string): Promise<void> {
  const other = openSqliteStore({ path: file });
  try {
    await other.enqueueEvents([
      {
        id,
        agentId: w.alpha.agentId,
        podId: w.podA.id,
        type: "task.assigned",
        payload: { taskId: "t", title: "x" },
        createdAt: Date.now(),
      },
    ]);
  } finally {
    await other.close();
  }
}

describe("the long-poll backstop on SQLite", () => {
  let w: World;
  let dir: string;
  afterEach(async () => {
    await w.app.close();
    await w.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sweeps nothing while only this process writes, and finds another connection's enqueue at the next sweep", async () => {
    dir = mkdtempSync(join(tmpdir(), "cap-sweep-"));
    const file = join(dir, "cap.db");
    const store = openSqliteStore({ path: file });
    const ticks = count(store, "readyComplete");
    const queries = count(store, "readyInstants");
    w = await makeWorld({ store, config: { longPollBackstopMs: 50 } });
    const started = Date.now();
    const waiting = w.cap(w.alpha.token, "GET", `/events?waitSeconds=${WAIT_S}`);
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    // Several backstop periods pass with a poll parked and no foreign write: no sweep query.
    const seen = ticks.n;
    await eventually(
      async () => ticks.n,
      (n) => n >= seen + 3,
    );
    expect(queries.n).toBe(0);

    await enqueueElsewhere(file, w, "evt_from_elsewhere");
    const events = (await waiting).json().events as { id: string }[];
    expect(events.map((e) => e.id)).toEqual(["evt_from_elsewhere"]);
    expect(queries.n).toBeGreaterThanOrEqual(1);
    // Found by a sweep, not by the end of the wait.
    expect(Date.now() - started).toBeLessThan(WAIT_S * 1000 - 5000);
  });

  it("wakes a waiting poll at the end of a lease another poll of its agent took while it waited", async () => {
    dir = mkdtempSync(join(tmpdir(), "cap-sweep-"));
    w = await makeWorld({
      store: openSqliteStore({ path: join(dir, "cap.db") }),
      // No sweep can help: the backstop is a minute away.
      config: { longPollBackstopMs: 60_000, leaseSeconds: 0.5 },
    });
    const started = Date.now();
    const waiting = w.cap(w.alpha.token, "GET", `/events?waitSeconds=${WAIT_S}`);
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    // Another connection enqueues (no wake-up reaches this process) and a poll that does not wait takes
    // the event at once: its lease end is the only ready instant the waiting poll can hear of.
    await enqueueElsewhere(join(dir, "cap.db"), w, "evt_leased_by_other");
    const [taken] = (await w.cap(w.alpha.token, "GET", "/events")).json().events as {
      id: string;
      attempts: number;
    }[];
    expect(taken).toMatchObject({ id: "evt_leased_by_other", attempts: 1 });
    const events = (await waiting).json().events as { id: string; attempts: number }[];
    expect(events.map((e) => [e.id, e.attempts])).toEqual([["evt_leased_by_other", 2]]);
    expect(Date.now() - started).toBeLessThan(WAIT_S * 1000 - 5000);
  });
});
