/**
 * Timer slack of empty long-polls (WakeHub `slackMs`): a wait ends on the next tick of its slack at or
 * after its own end, never before it and never more than one tick after (a tick of at most `slackMs` and at
 * most 4 % of the wait), so waits ending in one tick share a wake-up.
 */
import { describe, expect, it } from "vitest";
import { manualClock } from "../../src/clock.js";
import { WakeHub } from "../../src/services/wake-hub.js";
import type { Store } from "../../src/store/contract.js";

const store = {
  changes: { subscribe: () => () => undefined, readyComplete: () => false },
  readyInstants: async () => [],
} as unknown as Store;

const hub = (slackMs: number) =>
  new WakeHub(store, { clock: manualClock(), maxAttempts: 5, backstopMs: 60_000, slackMs });

describe("WakeHub timer slack", () => {
  it.each([
    // [slackMs, now, delay, whole wait, want]: the end now + delay, rounded up to a multiple of the slack,
    // which is slackMs halved until it is at most 4 % of the whole wait (the poll's waitSeconds)
    [100, 1000, 2500, 2500, 2500],
    [100, 1001, 2500, 2500, 2599],
    [100, 1050, 2500, 2500, 2550],
    [100, 1234.5, 25_000, 25_000, 25_065.5],
    [1000, 1234.5, 25_000, 25_000, 25_765.5],
    [1000, 1000, 25_000, 25_000, 25_000],
    [1000, 1002, 24_999, 25_000, 25_998], // what is left of a 25 s wait: still its 1 s slack
    [1000, 1002, 24_999, 24_999, 25_498], // a wait under 25 s: 4 % is under 1 s, a 500 ms slack
    [1000, 1000.5, 24_000, 24_000, 24_499.5], // 4 % of 24 s is 960 ms: a 500 ms slack
    [1000, 1001, 1000, 1000, 1030.25], // 4 % of 1 s is 40 ms: a 31.25 ms slack
    [1000, 1000, 10, 10, 10], // under 1 ms of slack: none
    [1000, 1001, 0, 0, 0],
    [0, 1234.5, 25_000, 25_000, 25_000],
    [100, 1000, -5, -5, 0],
  ])("slackMs %d, now %d, delay %d of a %d ms wait → waits %d ms", (slack, now, delay, whole, want) => {
    const h = hub(slack);
    expect(h.slackedDelay(delay, now, whole)).toBeCloseTo(want, 6);
    h.close();
  });

  it("ends two waits whose ends fall in one tick on the same tick, neither before its own end", async () => {
    const h = hub(100); // 4 % of a 2.5 s wait: the whole 100 ms
    const a = h.subscribe("a");
    const b = h.subscribe("b");
    const t0 = performance.now();
    const ended = (w: ReturnType<typeof h.subscribe>, ms: number) =>
      w.wait(ms).then((reason) => ({ reason, at: performance.now() - t0 }));
    // Both ends are within 10 ms of each other; they round to one tick unless a tick boundary falls
    // between them, which the slackedDelay table above covers, so compare against their own tick.
    const tickA = t0 + h.slackedDelay(2500, t0);
    const tickB = t0 + h.slackedDelay(2510, t0);
    const [ra, rb] = await Promise.all([ended(a, 2500), ended(b, 2510)]);
    expect([ra.reason, rb.reason]).toEqual(["timer", "timer"]);
    expect(ra.at).toBeGreaterThanOrEqual(2500 - 1);
    expect(rb.at).toBeGreaterThanOrEqual(2510 - 1);
    expect(ra.at).toBeGreaterThanOrEqual(tickA - t0 - 1);
    expect(rb.at).toBeGreaterThanOrEqual(tickB - t0 - 1);
    a.dispose();
    b.dispose();
    h.close();
  });

  it("still ends a wait at once when it is woken", async () => {
    const h = hub(1000);
    const a = h.subscribe("a");
    const waiting = a.wait(60_000);
    h.wake("a");
    expect(await waiting).toBe("woken");
    a.dispose();
    h.close();
  });
});
