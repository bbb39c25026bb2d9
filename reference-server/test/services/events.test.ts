/**
 * The events service on an injected clock: leases, redelivery, retirement and renewal without waiting.
 */
import { describe, expect, it } from "vitest";
import { manualClock } from "../../src/clock.js";
import { createKernel } from "../../src/kernel.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";

async function setup() {
  const clock = manualClock();
  const store = openSqliteStore({ path: ":memory:" });
  const k = createKernel({ store, clock, config: { leaseSeconds: 30, maxAttempts: 2 } });
  const { user } = await k.users.createUser({ name: "h", isAdmin: true });
  const pod = await k.pods.createPod(user.id, "p");
  await k.registry.publishAs(user.id, true, { name: "bot" });
  const admin = { kind: "human" as const, userId: user.id, name: "h", isAdmin: true, tokenId: "" };
  await k.registry.install(admin, { agentName: "bot", podId: pod.id });
  const { token } = await k.registry.issueToken(admin, pod.id, "bot", {});
  const caller = await k.tokens.authenticateAgent(`Bearer ${token}`);
  const emit = () => k.operator.emitDirect({ agentName: "bot", podId: pod.id, type: "t", payload: {} });
  const poll = () => k.events.poll(caller, { limit: 10, waitSeconds: 0 });
  return { k, clock, caller, emit, poll, store };
}

describe("events service (virtual time)", () => {
  it("redelivers exactly at lease end, retires after maxAttempts, and renews only the live delivery", async () => {
    const { k, clock, caller, emit, poll, store } = await setup();
    const { id } = await emit();
    expect((await poll()).map((e) => e.attempts)).toEqual([1]);
    clock.advance(29_999);
    expect(await poll()).toEqual([]);
    expect(await k.events.renew(caller, id, 1)).toBe(clock.now() + 30_000);
    clock.advance(29_999);
    expect(await poll()).toEqual([]);
    clock.advance(1);
    expect((await poll()).map((e) => e.attempts)).toEqual([2]);
    await expect(k.events.renew(caller, id, 1)).rejects.toMatchObject({ code: "lease_lost" });
    clock.advance(30_000);
    expect(await poll()).toEqual([]);
    expect((await store.getEvent(id))?.state).toBe("failed");
    await k.events.ack(caller, id, null);
    await expect(k.events.ack(caller, "evt_x", null)).rejects.toMatchObject({ code: "event_not_found" });
  });

  it("refreshes a token's lastUsedAt at most once a minute", async () => {
    const { k, clock, store } = await setup();
    const agentId = (await store.findAgentIdentity("bot", "default"))!.id;
    const [t] = await store.listRuntimeTokens({ agentId });
    const { token } = await k.registry.issueToken(
      { kind: "human", userId: t!.issuedBy, name: "h", isAdmin: true, tokenId: "" },
      t!.podId,
      "bot",
      {},
    );
    // Refreshes are written in batches (token-touches.ts): flush before reading what the store holds.
    const lastUsed = async () => {
      await k.tokens.touches.flush();
      return (await store.listRuntimeTokens({ agentId })).at(-1)!.lastUsedAt;
    };
    await k.tokens.authenticateAgent(`Bearer ${token}`);
    const first = await lastUsed();
    expect(first).toBe(clock.now());
    clock.advance(59_000);
    await k.tokens.authenticateAgent(`Bearer ${token}`);
    expect(await lastUsed()).toBe(first);
    clock.advance(2_000);
    await k.tokens.authenticateAgent(`Bearer ${token}`);
    expect(await lastUsed()).toBe(clock.now());
  });
});
