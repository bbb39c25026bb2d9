/**
 * The process-wide ready-instant scheduler and the wake hub on an injected clock and injected timers: one
 * armed timer whatever the number of agents and polls, instants fired once and in order, and the shared
 * backstop asking the store once per period for every waiting agent — never once per poll.
 */
import { describe, expect, it } from "vitest";
import { manualClock } from "../../src/clock.js";
import { ReadyScheduler, type Timers } from "../../src/services/ready-scheduler.js";
import { WakeHub } from "../../src/services/wake-hub.js";
import type { Store, StoreChange } from "../../src/store/contract.js";

/** Timers on the manual clock: `run()` fires every timer whose instant has come, in instant order. */
function fakeTimers(clock: ReturnType<typeof manualClock>) {
  let seq = 0;
  const armed = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    set(fn, ms) {
      armed.set(++seq, { at: clock.now() + ms, fn });
      return seq;
    },
    clear(h) {
      armed.delete(h as number);
    },
  };
  return {
    timers,
    get armed() {
      return armed.size;
    },
    /** Moves time forward timer by timer, so a timer set while firing counts from its own instant. */
    advance(ms: number) {
      const end = clock.now() + ms;
      for (;;) {
        const due = [...armed.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        armed.delete(due[0]);
        if (due[1].at > clock.now()) clock.set(due[1].at);
        due[1].fn();
      }
      clock.set(end);
    },
  };
}

function setup() {
  const clock = manualClock();
  const t = fakeTimers(clock);
  const fired: string[] = [];
  const s = new ReadyScheduler(clock, (id) => fired.push(id), t.timers);
  return { clock, t, fired, s, t0: clock.now() };
}

describe("ReadyScheduler", () => {
  it("fires each agent at its instant, in order, with one armed timer for all of them", () => {
    const { t, fired, s, t0 } = setup();
    s.at("a", t0 + 300);
    s.at("b", t0 + 100);
    s.at("c", t0 + 200);
    expect(t.armed).toBe(1);
    t.advance(99);
    expect(fired).toEqual([]);
    t.advance(1);
    expect(fired).toEqual(["b"]);
    expect(t.armed).toBe(1);
    t.advance(200);
    expect(fired).toEqual(["b", "c", "a"]);
    expect(t.armed).toBe(0);
    expect(s.size).toBe(0);
  });

  it("keeps only an agent's earliest instant and re-arms when an earlier one arrives", () => {
    const { t, fired, s, t0 } = setup();
    s.at("a", t0 + 500);
    s.at("a", t0 + 900); // later than the known one: ignored
    s.at("a", t0 + 50); // earlier: replaces it
    expect(s.size).toBe(1);
    expect(t.armed).toBe(1);
    t.advance(50);
    expect(fired).toEqual(["a"]);
    t.advance(1000); // the superseded 500 and 900 never fire
    expect(fired).toEqual(["a"]);
  });

  it("fires an instant already past at once and never before its instant", () => {
    const { t, fired, s, t0 } = setup();
    s.at("late", t0 - 10);
    t.advance(0);
    expect(fired).toEqual(["late"]);
    s.at("soon", t0 + 10);
    t.advance(9);
    expect(fired).toEqual(["late"]);
    t.advance(1);
    expect(fired).toEqual(["late", "soon"]);
  });

  it("forgets everything on clear()", () => {
    const { t, fired, s, t0 } = setup();
    s.at("a", t0 + 10);
    s.clear();
    expect(t.armed).toBe(0);
    t.advance(100);
    expect(fired).toEqual([]);
  });
});

/** Just what the hub uses of a store: wake-up subscriptions and the backstop's one query. */
function fakeStore(ready: Map<string, number>) {
  let listener: (change: StoreChange) => void = () => {};
  const queries: string[][] = [];
  const store = {
    changes: {
      subscribe(l: (change: StoreChange) => void) {
        listener = l;
        return () => {};
      },
      readyComplete: () => false,
    },
    async readyInstants({ agentIds }: { agentIds: string[] }) {
      queries.push([...agentIds].sort());
      return agentIds.filter((id) => ready.has(id)).map((id) => ({ agentId: id, at: ready.get(id)! }));
    },
  } as unknown as Store;
  return {
    store,
    queries,
    notify: (agentId: string) => listener({ kind: "ready", agentId }),
    missed: () => listener({ kind: "gap" }),
  };
}

describe("WakeHub", () => {
  it("wakes a waiting poll at its agent's scheduled instant, not before", async () => {
    const clock = manualClock();
    const t = fakeTimers(clock);
    const f = fakeStore(new Map());
    const hub = new WakeHub(f.store, { clock, maxAttempts: 5, backstopMs: 60_000, timers: t.timers });
    const w = hub.subscribe("a");
    const waiting = w.wait(10_000);
    hub.wakeAt("a", clock.now() + 300);
    t.advance(299);
    expect(w.signalled).toBe(false);
    t.advance(1);
    expect(await waiting).toBe("woken");
    w.dispose();
    hub.close();
  });

  it("runs one backstop query per period for all waiting agents, waking the ready and scheduling the rest", async () => {
    const clock = manualClock();
    const t = fakeTimers(clock);
    const t0 = clock.now();
    // a: ready now (a NOTIFY that was lost); b: a lease another replica holds ends at t0 + 3000; c: idle.
    const f = fakeStore(
      new Map([
        ["a", 0],
        ["b", t0 + 3000],
      ]),
    );
    const hub = new WakeHub(f.store, { clock, maxAttempts: 5, backstopMs: 1000, timers: t.timers });
    const polls = ["a", "b", "c", "c"].map((id) => {
      const w = hub.subscribe(id);
      return { id, w, result: w.wait(20_000) };
    });
    t.advance(999);
    expect(f.queries).toEqual([]);
    t.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(f.queries).toEqual([["a", "b", "c"]]);
    expect(polls.map((p) => p.w.signalled)).toEqual([true, false, false, false]);
    expect(hub.scheduledCount()).toBe(1);
    t.advance(2000); // b's instant (and two more backstop periods)
    await new Promise((r) => setImmediate(r));
    expect(polls[1]!.w.signalled).toBe(true);
    expect(f.queries.length).toBe(3);
    for (const p of polls) p.w.dispose();
    t.advance(5000); // nobody waits: the backstop stops querying
    expect(f.queries.length).toBe(3);
    hub.close();
  });

  it("sweeps at once when the store reports that wake-ups may have been missed, and on a store wake-up wakes only that agent", async () => {
    const clock = manualClock();
    const t = fakeTimers(clock);
    const f = fakeStore(new Map([["a", 0]]));
    const hub = new WakeHub(f.store, { clock, maxAttempts: 5, backstopMs: 60_000, timers: t.timers });
    const a = hub.subscribe("a");
    const b = hub.subscribe("b");
    const c = hub.subscribe("c");
    f.notify("c");
    expect([a.signalled, b.signalled, c.signalled]).toEqual([false, false, true]);
    f.missed();
    await new Promise((r) => setImmediate(r));
    expect(f.queries).toEqual([["a", "b", "c"]]);
    expect([a.signalled, b.signalled]).toEqual([true, false]);
    for (const w of [a, b, c]) w.dispose();
    hub.close();
  });
});
