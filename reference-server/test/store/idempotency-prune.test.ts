/**
 * Idempotency-Key records are pruned on a schedule (issue 30, finding 5: the prune function had no caller,
 * so every keyed post's record stayed forever). On both stores, with the kernel's injected clock and a
 * short `limits.idempotencyPruneIntervalMs`: a record older than `idempotencyTtlMs` disappears within a
 * few intervals, a younger one stays, and closing the kernel stops the schedule.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "../../src/clock.js";
import type { Store } from "../../src/store/contract.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";
import { type OpenedStore, STORES } from "../security/stores-under-test.js";

const TTL_MS = 60_000;
const INTERVAL_MS = 20;

describe.each(STORES)("the idempotency-record prune, on $name", ({ skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let clock: ReturnType<typeof manualClock>;
  let prunes = 0;
  beforeEach(async () => {
    if (skip) return;
    opened = await open();
    clock = manualClock(Date.now());
    prunes = 0;
    // The kernel's view of the store: prunes are counted, and closing the kernel leaves the store open
    // for the test to read (the test closes it).
    const store = new Proxy(opened.store, {
      get(target, prop, receiver) {
        if (prop === "close") return async () => {};
        if (prop === "pruneIdempotencyRecords")
          return (before: number) => {
            prunes++;
            return target.pruneIdempotencyRecords(before);
          };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    }) as Store;
    w = await makeWorld({
      store,
      clock,
      config: { idempotencyTtlMs: TTL_MS, limits: { idempotencyPruneIntervalMs: INTERVAL_MS } },
    });
  });
  afterEach(async () => {
    if (skip) return;
    await w.app.close();
    await w.kernel.close();
    await opened.close();
  });

  const keyedPost = (key: string) =>
    w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, { content: key }, { "idempotency-key": key });
  const record = (key: string) => opened.store.getIdempotencyRecord(w.alpha.agentId, key);

  it.skipIf(skip)("deletes records older than idempotencyTtlMs and keeps younger ones", async () => {
    expect((await keyedPost("old")).statusCode).toBe(201);
    clock.advance(TTL_MS / 2);
    expect((await keyedPost("young")).statusCode).toBe(201);
    // Several prunes run meanwhile; both records are within the TTL, so both stay.
    const n = prunes;
    await eventually(
      async () => prunes,
      (c) => c >= n + 3,
    );
    expect(await record("old")).not.toBeNull();
    clock.advance(TTL_MS / 2 + 1);
    await eventually(
      () => record("old"),
      (r) => r === null,
    );
    expect(await record("young")).not.toBeNull();
    // A post with the pruned key is a new post, as it already was past the TTL.
    const again = await keyedPost("old");
    expect([again.statusCode, again.headers["idempotent-replayed"]]).toEqual([201, undefined]);
  });

  it.skipIf(skip)("stops pruning when the kernel closes", async () => {
    expect((await keyedPost("kept")).statusCode).toBe(201);
    await eventually(
      async () => prunes,
      (n) => n >= 2,
    );
    await w.app.close();
    await w.kernel.close();
    const after = prunes;
    clock.advance(TTL_MS + 1);
    // Nothing may happen now: give it ten intervals to.
    await new Promise((r) => setTimeout(r, 10 * INTERVAL_MS));
    expect(prunes).toBe(after);
    expect(await record("kept")).not.toBeNull();
  });
});
