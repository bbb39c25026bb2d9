/**
 * lastUsedAt refreshes written in batches (src/services/token-touches.ts), on the real SQLite store with
 * its transactions counted or made to fail.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTokenTouches } from "../../src/services/token-touches.js";
import type { Store } from "../../src/store/contract.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { eventually } from "../../src/testing/index.js";

const T0 = 1_790_000_000_000;
let store: Store;

afterEach(async () => {
  await store?.close();
});

/** A store with `n` runtime tokens, whose transactions are counted and can be made to fail. */
async function setup(n: number) {
  store = openSqliteStore({ path: ":memory:" });
  await store.insertUser({ id: "usr_1", name: "h", isAdmin: true, createdAt: T0, deletedAt: null });
  await store.ensureAgentIdentity({
    id: "agt_1",
    agentName: "bot",
    instanceId: "default",
    ownerId: null,
    createdAt: T0,
  });
  const ids = Array.from({ length: n }, (_, i) => `rtk_${i}`);
  for (const id of ids)
    await store.insertRuntimeToken({
      id,
      hash: `hash_${id}`,
      agentId: "agt_1",
      installationId: "ins_1",
      podId: "pod_1",
      issuedBy: "usr_1",
      label: null,
      createdAt: T0,
      lastUsedAt: null,
      revokedAt: null,
    });
  const counted = { transactions: 0, failNext: 0 };
  const wrapped: Store = {
    ...store,
    transaction: (fn) => {
      counted.transactions++;
      if (counted.failNext > 0) {
        counted.failNext--;
        return Promise.reject(new Error("store unavailable (test)"));
      }
      return store.transaction(fn);
    },
  };
  const lastUsed = async (id: string) => (await store.getRuntimeToken(id))?.lastUsedAt ?? null;
  return { ids, counted, wrapped, lastUsed };
}

describe("token touches", () => {
  it("writes the touches of many tokens in one transaction, after the flush interval", async () => {
    const { ids, counted, wrapped, lastUsed } = await setup(5);
    const touches = createTokenTouches(wrapped, 20);
    for (const [i, id] of ids.entries()) touches.touch(id, T0 + i);
    expect(await lastUsed("rtk_0")).toBeNull();
    await eventually(async () => (await lastUsed("rtk_4")) === T0 + 4, "the flush has written");
    expect(await Promise.all(ids.map(lastUsed))).toEqual(ids.map((_, i) => T0 + i));
    expect(counted.transactions).toBe(1);
    await touches.close();
  });

  it("writes a token's latest touch", async () => {
    const { counted, wrapped, lastUsed } = await setup(1);
    const touches = createTokenTouches(wrapped, 60_000);
    touches.touch("rtk_0", T0 + 1);
    touches.touch("rtk_0", T0 + 2);
    await touches.flush();
    expect(await lastUsed("rtk_0")).toBe(T0 + 2);
    expect(counted.transactions).toBe(1);
    await touches.flush(); // nothing left: no transaction
    expect(counted.transactions).toBe(1);
    await touches.close();
  });

  it("keeps the touches of a failed flush for the next, and a newer touch over them", async () => {
    const { counted, wrapped, lastUsed } = await setup(2);
    const touches = createTokenTouches(wrapped, 60_000);
    touches.touch("rtk_0", T0 + 1);
    touches.touch("rtk_1", T0 + 1);
    counted.failNext = 1;
    await touches.flush();
    expect([await lastUsed("rtk_0"), await lastUsed("rtk_1")]).toEqual([null, null]);
    touches.touch("rtk_1", T0 + 5);
    await touches.flush();
    expect([await lastUsed("rtk_0"), await lastUsed("rtk_1")]).toEqual([T0 + 1, T0 + 5]);
    expect(counted.transactions).toBe(2);
    await touches.close();
  });

  it("writes what is pending on close, and a touch after close at once", async () => {
    const { wrapped, lastUsed } = await setup(2);
    const touches = createTokenTouches(wrapped, 60_000);
    touches.touch("rtk_0", T0 + 3);
    await touches.close();
    expect(await lastUsed("rtk_0")).toBe(T0 + 3);
    touches.touch("rtk_1", T0 + 4);
    await eventually(async () => (await lastUsed("rtk_1")) === T0 + 4, "the touch after close is written");
  });

  it("never makes the caller wait: a touch returns while the store's transaction hangs", async () => {
    const { wrapped } = await setup(1);
    let started = 0;
    const hanging: Store = {
      ...wrapped,
      transaction: () => {
        started++;
        return new Promise(() => undefined);
      },
    };
    const touches = createTokenTouches(hanging, 1);
    expect(touches.touch("rtk_0", T0)).toBeUndefined();
    await eventually(() => started === 1, "the flush has started");
  });
});
