/**
 * runDriver holds every lease it takes (renews waiting events too, releases what it gives up),
 * acks through batch ack when the kernel has it, and retries polls with the same pollId — on the
 * fake kernel and virtual time. The same behaviours run against the real kernel in
 * test/integration/driver-leases.test.ts.
 */

import { eventually } from "@commonly/cap-kernel/testing";
import { describe, expect, it } from "vitest";
import { CapSdkError } from "../../src/errors.js";
import { j, setup, time } from "../helpers/driver-setup.js";
import { httpError } from "../helpers/fake-kernel.js";

const without = (features: string[], ...drop: string[]) => features.filter((f) => !drop.includes(f));

describe("runDriver holds every lease it takes", () => {
  it("renews the fetched events still waiting, not only the running one; none lapses meanwhile", async () => {
    const t = setup();
    const ids = [1, 2, 3].map((n) => t.kernel.enqueue("task.assigned", { n }));
    const starts: Array<{ id: string; attempts: number }> = [];
    const renewed = (id: string) => t.kernel.renews.filter((r) => r.id === id).length;
    let whenSecondStarted: { renews: number[]; rival: unknown[] } | undefined;
    t.start({
      handle: async (event) => {
        starts.push({ id: event.id, attempts: event.attempts });
        if (starts.length === 2) {
          // A second poller, 100 s in, finds nothing to claim: every lease is held.
          const rival = (await t.kernel.poll({ limit: 10 })).events;
          whenSecondStarted = { renews: ids.map(renewed), rival };
        }
        // A CLI turn of 100 s, more than three leases of 30 s.
        await time.sleep(100_000);
      },
    });
    await eventually(() => t.kernel.acks.length === 3, "all three are acked");
    expect(starts).toEqual(ids.map((id) => ({ id, attempts: 1 })));
    expect(t.kernel.rows.map((r) => r.event.attempts)).toEqual([1, 1, 1]);
    // While the first ran, the waiting second and third were renewed as often as the first.
    expect(whenSecondStarted?.rival).toEqual([]);
    for (const count of whenSecondStarted!.renews) expect(count).toBeGreaterThanOrEqual(6);
    await t.finish();
  });

  it("does not start a waiting event whose lease was lost; it runs only when redelivered", async () => {
    const t = setup();
    const first = t.kernel.enqueue("task.assigned", {});
    const second = t.kernel.enqueue("task.assigned", {});
    const started: Array<[string, number]> = [];
    // The first renewal round renews the first event, then the second: the second's is refused.
    t.kernel.renewErrors.push(undefined, httpError(409, "lease_lost"));
    t.start({
      handle: async (event) => {
        started.push([event.id, event.attempts]);
        if (event.id === first) await time.sleep(20_000);
      },
    });
    await eventually(() => t.kernel.acked(second), "the second event is acked after its redelivery");
    expect(t.log.indexOf(`lost:${second}`)).toBeGreaterThanOrEqual(0);
    expect(started).toEqual([
      [first, 1],
      [second, 2],
    ]);
    expect(await t.finish()).toMatchObject({ handled: 2, released: 1 });
  });

  it("releases a failed event with its circuit delay and the unstarted rest at once; the failed one is back when the probe is due", async () => {
    const t = setup();
    const first = t.kernel.enqueue("task.assigned", { n: 1 });
    const second = t.kernel.enqueue("task.assigned", { n: 2 });
    const began = time.now;
    const seen: Array<[unknown, number]> = [];
    t.start({
      handle: (event) => {
        seen.push([event.payload.n, time.now - began]);
        if (seen.length === 1) throw new Error("model crashed (token cm_agent_0123abcd)");
      },
    });
    await eventually(() => t.kernel.acks.length === 2, "both events are acked");
    expect(t.kernel.releases).toEqual([
      {
        id: first,
        attempts: 1,
        delaySeconds: Math.floor(j(1000) / 1000),
        reason: "handler failed (runtime, 1 in a row): model crashed (token [redacted])",
        at: expect.any(Number),
      },
      {
        id: second,
        attempts: 1,
        delaySeconds: 0,
        reason: "not started: an earlier event of the batch failed and the retry circuit is waiting",
        at: expect.any(Number),
      },
    ]);
    // Back after the circuit's delay (about 1 s), oldest first — not after the 30 s lease.
    expect(seen.map(([n]) => n)).toEqual([1, 1, 2]);
    expect(seen[1]![1]).toBeGreaterThanOrEqual(j(1000));
    expect(seen[1]![1]).toBeLessThan(5000);
    expect(t.log).toContain(`release:${first}:${Math.floor(j(1000) / 1000)}`);
    expect(await t.finish()).toMatchObject({ handled: 2, failures: 1, returned: 2 });
  });

  it("caps a release delay at 900 s while the circuit itself waits its 15 minutes and more", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    let calls = 0;
    t.start({
      handle: () => {
        if (calls++ === 0) throw Object.assign(new Error("out of credits"), { kind: "quota" });
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the event succeeds on the probe");
    expect(t.log).toContain(`circuit:quota:1:${j(900_000)}`);
    expect(t.kernel.releases.map((r) => [r.id, r.delaySeconds])).toEqual([[id, 900]]);
    await t.finish();
  });

  it("without the release feature leaves a failed event to its lease, as before", async () => {
    const t = setup();
    t.kernel.features = without(t.kernel.features, "release");
    t.kernel.enqueue("task.assigned", {});
    const began = time.now;
    const at: number[] = [];
    t.start({
      handle: () => {
        at.push(time.now - began);
        if (at.length === 1) throw new Error("model crashed");
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the redelivery is acked");
    expect(t.kernel.releases).toEqual([]);
    expect(at[1]).toBeGreaterThanOrEqual(30_000);
    expect(await t.finish()).toMatchObject({ returned: 0 });
  });

  it("on stop releases the fetched events it has not started and lets the running one finish", async () => {
    const t = setup({ shutdownTimeoutMs: 60_000 });
    const ids = [1, 2, 3].map((n) => t.kernel.enqueue("task.assigned", { n }));
    let started = 0;
    let releasedWhileRunning = -1;
    const running = t.start({
      handle: async () => {
        started++;
        t.stop.abort(); // Ctrl-C while the first of three runs
        await time.sleep(10_000);
        releasedWhileRunning = t.kernel.releases.length;
      },
    });
    expect(await running).toMatchObject({ handled: 1, returned: 2, released: 0 });
    expect(started).toBe(1);
    // Given back at once, not after the running handler's turn.
    expect(releasedWhileRunning).toBe(2);
    expect(t.kernel.acks.map((a) => a.id)).toEqual([ids[0]]);
    expect(t.kernel.releases.map((r) => [r.id, r.delaySeconds, r.reason])).toEqual([
      [ids[1], 0, "not started: the driver is stopping"],
      [ids[2], 0, "not started: the driver is stopping"],
    ]);
    expect(t.kernel.rows.slice(1).map((r) => r.state)).toEqual(["ready", "ready"]);
  });

  it("releases the running event too when the shutdown grace runs out", async () => {
    const t = setup({ shutdownTimeoutMs: 5_000 });
    const id = t.kernel.enqueue("task.assigned", {});
    let started = false;
    const running = t.start({
      handle: (_e, ctx) =>
        new Promise<void>((resolve) => {
          started = true;
          ctx.signal.addEventListener("abort", () => resolve());
        }),
    });
    await eventually(() => started, "the handler runs");
    t.stop.abort();
    expect(await running).toMatchObject({ handled: 0, released: 1, returned: 1 });
    expect(t.kernel.releases.map((r) => [r.id, r.reason])).toEqual([
      [id, "the driver stopped before the handler finished"],
    ]);
    expect(t.kernel.acks).toEqual([]);
  });
});

describe("runDriver acks", () => {
  it("acks through batch ack when /info advertises it: one request for a batch of handlers that finish in one tick", async () => {
    const t = setup({ limit: 20 });
    t.kernel.ackLatencyMs = 5;
    const ids = Array.from({ length: 20 }, (_, n) => t.kernel.enqueue("task.assigned", { n }));
    t.kernel.ack = () => Promise.reject(new Error("the driver used the single ack"));
    const acked: string[] = [];
    t.start({ onAck: (a) => acked.push(a.event.id) });
    await eventually(() => acked.length === 20, "all 20 are acked");
    expect(t.kernel.batches.flat()).toEqual(ids);
    // Group commit: the first ack waits for the end of its tick, and the 19 that finish in it go along.
    expect(t.kernel.batches.map((b) => b.length)).toEqual([20]);
    await t.finish();
  });

  it("acks one event per request when the kernel does not advertise batch-ack", async () => {
    const t = setup();
    t.kernel.features = without(t.kernel.features, "batch-ack");
    for (let n = 0; n < 3; n++) t.kernel.enqueue("task.assigned", { n });
    t.start();
    await eventually(() => t.kernel.acks.length === 3, "all three are acked");
    expect(t.kernel.batches).toEqual([]);
    await t.finish();
  });

  it("acks per event and never releases on a kernel without /info (the production kernel)", async () => {
    const t = setup();
    t.kernel.infoMode = "absent";
    t.kernel.enqueue("task.assigned", {});
    t.kernel.enqueue("task.assigned", {});
    let calls = 0;
    t.start({
      handle: () => {
        if (calls++ === 0) throw new Error("model crashed");
      },
    });
    await eventually(() => t.kernel.acks.length === 2, "both are acked after the lease");
    expect(t.kernel.batches).toEqual([]);
    expect(t.kernel.releases).toEqual([]);
    await t.finish();
  });

  it("sends a finished handler's ack while the next handler still runs", async () => {
    const t = setup();
    const first = t.kernel.enqueue("task.assigned", { n: 1 });
    t.kernel.enqueue("task.assigned", { n: 2 });
    let ackedWhileSecondRan: boolean | undefined;
    t.start({
      handle: async (event) => {
        if (event.payload.n !== 2) return;
        await time.sleep(60_000);
        ackedWhileSecondRan = t.kernel.acked(first);
      },
    });
    await eventually(() => t.kernel.acks.length === 2, "both are acked");
    expect(ackedWhileSecondRan).toBe(true);
    await t.finish();
  });

  it("reports an item the batch ack refused as an ack error and goes on", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    const realAckMany = t.kernel.ackMany.bind(t.kernel);
    t.kernel.ackMany = async (acks) => {
      await realAckMany(acks);
      return { results: acks.map((a) => ({ id: a.id, ok: false as const, code: "event_not_found" })) };
    };
    const errors: Array<{ stage: string; code: unknown }> = [];
    t.start({ onError: (e) => errors.push({ stage: e.stage, code: (e.error as { code?: unknown }).code }) });
    await eventually(() => errors.length === 1, "the refusal is reported");
    expect(errors).toEqual([{ stage: "ack", code: "event_not_found" }]);
    expect(t.kernel.acked(id)).toBe(true);
    await t.finish();
  });
});

describe("runDriver polls with a pollId", () => {
  it("retries a failed poll with the same pollId and uses a new one after an answer", async () => {
    const t = setup();
    t.kernel.pollErrors.push(
      new CapSdkError("network", "connection reset"),
      httpError(503, "store_unavailable"),
    );
    t.start();
    await eventually(() => t.kernel.polls.length >= 4, "four polls");
    const ids = t.kernel.polls.map((p) => p.pollId);
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toBe(ids[0]);
    expect(new Set(ids.slice(2)).size).toBe(ids.length - 2);
    await t.finish();
  });

  it("handles the events of a poll whose answer was lost once, without waiting out their lease", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    const realPoll = t.kernel.poll.bind(t.kernel);
    let lost = false;
    t.kernel.poll = async (query, options) => {
      const answer = await realPoll(query, options);
      if (!lost && answer.events.length > 0) {
        lost = true; // claimed, then the answer never arrived
        throw new CapSdkError("network", "socket hang up");
      }
      return answer;
    };
    const began = time.now;
    const seen: Array<[number, number]> = [];
    t.start({ handle: (event) => void seen.push([event.attempts, time.now - began]) });
    await eventually(() => t.kernel.acked(id), "the replayed delivery is acked");
    expect(seen).toHaveLength(1);
    expect(seen[0]![0]).toBe(1);
    expect(seen[0]![1]).toBeLessThan(30_000);
    await t.finish();
  });

  it("renews a replayed delivery by what is left of its lease, before that lease ends", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    const realPoll = t.kernel.poll.bind(t.kernel);
    let claimedAt = 0;
    let lost = false;
    t.kernel.poll = async (query, options) => {
      const answer = await realPoll(query, options);
      if (!lost && answer.events.length > 0) {
        lost = true; // claimed now; the answer is lost and the retry comes 20 s into the 30 s lease
        claimedAt = time.now;
        await time.sleep(20_000);
        throw new CapSdkError("network", "socket hang up");
      }
      return answer;
    };
    t.start({ handle: async () => void (await time.sleep(30_000)) });
    await eventually(() => t.kernel.acked(id), "the replayed delivery is acked");
    const renews = t.kernel.renews.filter((r) => r.id === id);
    expect(renews.length).toBeGreaterThan(0);
    expect(renews[0]!.at - claimedAt).toBeLessThan(30_000);
    expect(t.log.filter((l) => l.startsWith("lost:"))).toEqual([]);
    expect(t.kernel.rows.find((r) => r.event.id === id)?.event.attempts).toBe(1);
    await t.finish();
  });
});
