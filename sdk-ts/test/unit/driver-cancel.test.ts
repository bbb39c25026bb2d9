/**
 * runDriver and CAP feature `cancel`, on the fake kernel and virtual time: a running handler's
 * delivery is watched once it has run 250 ms, and a cancel (seen by the watch or by a renew answered
 * 409 with `details.cancelled`) aborts its signal with a `CancelledError`, ends its posts and its
 * renewals, and is acked `cancelled` once the handler settled; the watch ends with the turn, backs off
 * on failures, and is never sent to a kernel that does not advertise `cancel`. The same behaviours run
 * against the real kernel in test/integration/driver-cancel.test.ts.
 */

import { eventually } from "@commonly/cap-kernel/testing";
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/driver-types.js";
import { CancelledError, CapHttpError, CapSdkError } from "../../src/errors.js";
import { j, setup, time } from "../helpers/driver-setup.js";
import { httpError } from "../helpers/fake-kernel.js";

/** The fake kernel's features plus `cancel`. */
function cancelling(t: ReturnType<typeof setup>) {
  t.kernel.features.push("cancel");
  return t;
}

/** A promise the test resolves: virtual time would run a handler's sleep out before the test looks. */
function opened() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const aborted = (ctx: HandlerContext) =>
  new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));

describe("runDriver stops a cancelled handler", () => {
  it("aborts the signal with the reason, posts nothing after it, acks `cancelled` once the handler settled, and counts it", async () => {
    const t = cancelling(setup());
    const id = t.kernel.enqueue("task.assigned", { title: "refactor" }, { podId: "pod_1" });
    const cancels: Array<{ id: string; reason: string; requestedAt?: string }> = [];
    let reason: unknown;
    let afterwards: unknown;
    let started = 0;
    t.start({
      onCancel: (c) => cancels.push({ id: c.event.id, reason: c.reason, requestedAt: c.requestedAt }),
      handle: async (_event, ctx) => {
        started = time.now;
        await ctx.reply("on it");
        await aborted(ctx);
        reason = ctx.signal.reason;
        afterwards = await ctx.reply("done anyway").catch((e: unknown) => e);
        return { outcome: "posted" };
      },
    });
    await eventually(() => t.kernel.openWatches === 1, "the running handler's delivery is watched");
    t.kernel.cancel(id, "wrong repository");
    await eventually(() => t.kernel.acks.length === 1, "the cancelled event is acked");

    expect(reason).toBeInstanceOf(CancelledError);
    expect(reason).toBeInstanceOf(CapSdkError);
    expect(reason).toMatchObject({ code: "cancelled", reason: "wrong repository", name: "CancelledError" });
    expect(afterwards).toBe(reason);
    expect(t.kernel.posts.map((p) => p.content)).toEqual(["on it"]);
    expect(t.kernel.acks).toEqual([{ id, result: { outcome: "cancelled", reason: "wrong repository" } }]);
    expect(cancels).toEqual([{ id, reason: "wrong repository", requestedAt: expect.any(String) }]);
    const watch = t.kernel.watches[0]!;
    expect(watch).toMatchObject({ id, attempts: 1, waitSeconds: 20 });
    expect(watch.at - started).toBeGreaterThanOrEqual(250);
    // No renew after the cancel: the driver stopped holding the lease at once.
    const cancelledAt = t.kernel.rows[0]!.cancel!.at;
    expect(t.kernel.renews.filter((r) => r.at > cancelledAt)).toEqual([]);
    expect(await t.finish()).toMatchObject({ handled: 0, cancelled: 1, failures: 0, released: 0 });
  });

  it("stops a handler whose renew is answered 409 with details.cancelled, without watching on a kernel that does not advertise cancel", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    let reason: unknown;
    t.start({
      handle: async (_event, ctx) => {
        await aborted(ctx);
        reason = ctx.signal.reason;
      },
    });
    await eventually(() => t.kernel.renews.length >= 1, "the lease is renewed once");
    t.kernel.cancel(id, "requested");
    await eventually(() => t.kernel.acks.length === 1, "the cancelled event is acked");
    expect(reason).toMatchObject({ code: "cancelled", reason: "requested" });
    expect((reason as CancelledError).cause).toMatchObject({ status: 409, code: "lease_lost" });
    expect(t.kernel.acks[0]).toEqual({ id, result: { outcome: "cancelled", reason: "requested" } });
    expect(t.kernel.watches).toEqual([]);
    expect(t.log).not.toContain(`lost:${id}`);
    expect(await t.finish()).toMatchObject({ cancelled: 1, released: 0 });
  });

  it("never starts a waiting event cancelled before its turn, and acks it `cancelled`", async () => {
    const t = cancelling(setup());
    const first = t.kernel.enqueue("task.assigned", { n: 1 });
    const second = t.kernel.enqueue("task.assigned", { n: 2 });
    const started: string[] = [];
    const cancels: string[] = [];
    const gate = opened();
    t.start({
      onCancel: (c) => cancels.push(c.event.id),
      handle: async (event) => {
        started.push(event.id);
        if (event.id === first) await gate.promise;
      },
    });
    await eventually(() => started.length === 1, "the first handler runs");
    t.kernel.cancel(second, "superseded");
    // The waiting event's next renewal is answered 409 with details.cancelled.
    await eventually(() => cancels.length === 1, "the driver learns of the cancel");
    gate.open();
    await eventually(() => t.kernel.acks.length === 2, "both events are acked");
    expect(started).toEqual([first]);
    expect(cancels).toEqual([second]);
    expect(t.kernel.acks).toEqual([
      { id: first, result: { outcome: "acknowledged" } },
      { id: second, result: { outcome: "cancelled", reason: "superseded" } },
    ]);
    expect(await t.finish()).toMatchObject({ handled: 1, cancelled: 1 });
  });

  it("acks a handler that ignores the signal `cancelled` when the shutdown grace has passed", async () => {
    const t = cancelling(setup());
    const id = t.kernel.enqueue("task.assigned", {});
    const gate = opened();
    let ackedAt = 0;
    t.start({ shutdownTimeoutMs: 5000, handle: () => gate.promise, onAck: () => (ackedAt = time.now) });
    await eventually(() => t.kernel.openWatches === 1, "the delivery is watched");
    t.kernel.cancel(id);
    const cancelledAt = time.now;
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    expect(t.kernel.acks[0]!.result).toEqual({ outcome: "cancelled", reason: "requested" });
    expect(ackedAt - cancelledAt).toBe(5000);
    gate.open();
    await t.finish();
  });
});

describe("runDriver's cancellation watch", () => {
  it("costs nothing for a handler that ends within 250 ms, and ends with the turn: its request aborted", async () => {
    const t = cancelling(setup());
    t.kernel.enqueue("task.assigned", { ms: 100 });
    t.kernel.enqueue("task.assigned", { ms: 30_000 });
    t.start({ handle: (event) => time.sleep(event.payload.ms as number) });
    await eventually(() => t.kernel.acks.length === 2, "both are acked");
    await eventually(() => t.kernel.openWatches === 0, "no watch is left open");
    const second = t.kernel.rows[1]!.event.id;
    expect(t.kernel.watches.map((w) => w.id)).toEqual([second, second]);
    expect(t.kernel.watches.map((w) => w.end)).toEqual(["quiet", "aborted"]);
    expect(await t.finish()).toMatchObject({ handled: 2, cancelled: 0 });
  });

  it("backs off after a network failure from the poll interval, and waits out a 429's Retry-After", async () => {
    const t = cancelling(setup());
    t.kernel.enqueue("task.assigned", {});
    const network = new CapSdkError("network", "GET /events/{id}/cancellation got no answer: reset");
    const busy = new CapHttpError({
      status: 429,
      code: "too_many_long_polls",
      retryAfterSeconds: 30,
      operation: "GET /events/{id}/cancellation",
    });
    t.kernel.watchErrors.push(network, busy);
    const stages: string[] = [];
    t.start({
      onError: (e) => stages.push(e.stage),
      handle: () => time.sleep(80_000),
    });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    const at = t.kernel.watches.map((w) => w.at);
    expect(stages).toEqual(["watch", "watch"]);
    expect(at[1]! - at[0]!).toBe(j(1000));
    expect(at[2]! - at[1]!).toBe(30_000);
    // Then quiet 20 s watches, one at a time.
    expect(t.kernel.watches.slice(2).every((w) => w.end === "quiet" || w.end === "aborted")).toBe(true);
    expect(at[3]! - at[2]!).toBe(20_000);
    await t.finish();
  });

  it("is not sent in a tight loop to a kernel that answers at once", async () => {
    const t = cancelling(setup());
    t.kernel.ignoreWatchWait = true;
    t.kernel.enqueue("task.assigned", {});
    t.start({ handle: () => time.sleep(120_000) });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    const at = t.kernel.watches.map((w) => w.at);
    const gaps = at.slice(1).map((a, i) => a - at[i]!);
    expect(gaps.slice(0, 3)).toEqual([j(1000), j(2000), j(4000)]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(j(20_000));
    expect(at.length).toBeLessThan(15);
    await t.finish();
  });

  it("loses the turn on 409 lease_lost, as a renew's would: its handler is aborted and posts nothing more for that delivery (CAP-DRV-21)", async () => {
    const t = cancelling(setup());
    const id = t.kernel.enqueue("task.assigned", {});
    t.kernel.watchErrors.push(httpError(409, "lease_lost", "GET /events/{id}/cancellation"));
    const stages: string[] = [];
    let reason: unknown;
    let reply: unknown;
    t.start({
      onError: (e) => stages.push(e.stage),
      handle: async (event, ctx) => {
        if (event.attempts > 1) return;
        await aborted(ctx);
        reason = ctx.signal.reason;
        reply = await ctx.reply("too late").catch((e: unknown) => e);
      },
    });
    // The kernel redelivers the event once the lost lease has run out; that delivery is handled and acked.
    await eventually(() => t.kernel.acks.length === 1, "the redelivery is acked");
    expect(t.log).toContain(`lost:${id}`);
    expect((reason as CapSdkError).code).toBe("lease_lost");
    expect(reply).toBe(reason);
    expect(t.kernel.posts).toEqual([]);
    expect(t.kernel.watches.map((w) => w.end)[0]).toBe("lease_lost");
    expect(stages).toEqual([]);
    expect(await t.finish()).toMatchObject({ released: 1, handled: 1, cancelled: 0 });
  });
});

describe("runDriver's cancellation watch keeps the lease", () => {
  it("sends no renew while the watch works: each answer renews (onRenew), one request per 20 s", async () => {
    const t = cancelling(setup());
    const id = t.kernel.enqueue("task.assigned", {});
    t.start({ handle: () => time.sleep(100_000) });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    expect(t.kernel.renews).toEqual([]);
    const quiet = t.kernel.watches.filter((w) => w.end === "quiet");
    // With a 30 s lease each watch ends after its 20 s wait, when a third of the lease is left.
    expect(quiet.slice(1).map((w) => w.endedAt! - w.at)).toEqual(quiet.slice(1).map(() => 20_000));
    expect(quiet.length).toBe(4);
    expect(t.log.filter((l) => l === `renew:${id}`)).toHaveLength(quiet.length);
    expect(t.log).not.toContain(`lost:${id}`);
    expect(t.kernel.rows[0]!.event.attempts).toBe(1);
    expect(await t.finish()).toMatchObject({ handled: 1, released: 0 });
  });

  it("keeps a short lease with watches alone: a turn of three leases, no renew, no redelivery", async () => {
    const t = cancelling(setup());
    t.kernel.leaseSeconds = 3;
    const id = t.kernel.enqueue("task.assigned", {});
    t.start({ handle: () => time.sleep(9000) });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    expect(t.kernel.renews).toEqual([]);
    // Each ends when a third of the 3 s lease is left, having renewed it: every 2 s.
    const quiet = t.kernel.watches.filter((w) => w.end === "quiet");
    expect(quiet.slice(1).map((w) => w.endedAt! - w.at)).toEqual(quiet.slice(1).map(() => 2000));
    expect(quiet.length).toBe(4);
    expect(t.kernel.acks).toEqual([{ id, result: { outcome: "acknowledged" } }]);
    expect(t.kernel.rows[0]!.event.attempts).toBe(1);
    expect(t.log).not.toContain(`lost:${id}`);
    await t.finish();
  });

  it("renews on its own timer, from the last known lease end, while the watch fails; stops once a watch is answered", async () => {
    const t = cancelling(setup());
    t.kernel.leaseSeconds = 3;
    t.kernel.enqueue("task.assigned", {});
    const unavailable = () =>
      new CapHttpError({ status: 503, code: "unavailable", operation: "GET /events/{id}/cancellation" });
    const stages: string[] = [];
    let renewals = 0;
    t.start({
      onError: (e) => stages.push(e.stage),
      // Right after the first watch renewed the lease, the next three fail (waits of 1, 2 and 4 s).
      onRenew: () => {
        if (++renewals === 1) t.kernel.watchErrors.push(unavailable(), unavailable(), unavailable());
      },
      handle: () => time.sleep(30_000),
    });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    expect(stages).toEqual(["watch", "watch", "watch"]);
    const w = t.kernel.watches;
    expect(w.map((x) => x.end)).toEqual([
      "quiet",
      "unavailable",
      "unavailable",
      "unavailable",
      ...w.slice(4).map(() => expect.stringMatching(/^(quiet|aborted)$/)),
    ]);
    const firstAnswer = w[0]!.endedAt!;
    const recovered = w[4]!.endedAt!;
    // The 3 s lease the first watch left is renewed at half of it (renewAt), then every 1.5 s.
    const renewed = t.kernel.renews.map((r) => r.at);
    expect(renewed[0]).toBe(firstAnswer + 1500);
    expect(renewed.length).toBeGreaterThanOrEqual(4);
    expect(renewed.every((at) => at < recovered)).toBe(true);
    expect(renewals).toBe(renewed.length + w.filter((x) => x.end === "quiet").length);
    expect(t.kernel.rows[0]!.event.attempts).toBe(1);
    expect(t.log.filter((l) => l.startsWith("lost:"))).toEqual([]);
    await t.finish();
  });

  it("renews a lease a watch answer left unchanged (a kernel shutting down) until a watch renews it again", async () => {
    const t = cancelling(setup());
    t.kernel.watchRenews = false;
    const id = t.kernel.enqueue("task.assigned", {});
    t.start({
      // The kernel renews as watches end again from the renew the driver sends itself.
      onRenew: () => {
        t.kernel.watchRenews = true;
      },
      handle: () => time.sleep(100_000),
    });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    const [unchanged, ...rest] = t.kernel.watches;
    expect(unchanged!.endedAt! - unchanged!.at).toBe(20_000);
    // Less than half the lease was left: renewed at once, and 15 s later while the next watch is out;
    // none once that watch renewed the lease.
    const renewed = unchanged!.endedAt!;
    expect(t.kernel.renews.map((r) => r.at)).toEqual([renewed, renewed + 15_000]);
    expect(rest[0]).toMatchObject({ end: "quiet", endedAt: renewed + 20_000 });
    expect(rest.filter((w) => w.end === "quiet").length).toBeGreaterThanOrEqual(3);
    expect(t.kernel.rows[0]!.event.attempts).toBe(1);
    expect(t.log).not.toContain(`lost:${id}`);
    await t.finish();
  });

  it("falls back to renewals on a kernel whose watch does not renew, and a short lease is kept until it shows", async () => {
    for (const leaseSeconds of [30, 3]) {
      const t = cancelling(setup());
      t.kernel.watchRenews = false;
      t.kernel.leaseSeconds = leaseSeconds;
      const id = t.kernel.enqueue("task.assigned", {});
      t.start({ handle: () => time.sleep(100_000) });
      await eventually(() => t.kernel.acks.length === 1, `the event is acked (${leaseSeconds} s lease)`);
      const firstAnswer = t.kernel.watches[0]!.endedAt!;
      expect(firstAnswer - t.kernel.watches[0]!.at).toBe(20_000);
      const renewed = t.kernel.renews.map((r) => r.at);
      const before = renewed.filter((at) => at < firstAnswer);
      const after = renewed.filter((at) => at > firstAnswer);
      if (leaseSeconds === 30) {
        // Until the first answer, as if the watch renewed; then at once (less than half is left), and
        // every 15 s.
        expect(before).toEqual([]);
        expect(renewed[0]).toBe(firstAnswer);
        expect(after.map((at, i) => at - (renewed[i] ?? 0))).toEqual(after.map(() => 15_000));
      } else {
        // The backstop: renewed when an eighth of the lease is left, while the first watch waits.
        expect(before.length).toBeGreaterThanOrEqual(7);
        expect(before[0]).toBe(Date.parse(t.kernel.rows[0]!.event.leaseExpiresAt!) - 375);
      }
      expect(t.kernel.acks).toEqual([{ id, result: { outcome: "acknowledged" } }]);
      expect(t.kernel.rows[0]!.event.attempts).toBe(1);
      expect(t.log).not.toContain(`lost:${id}`);
      // Every POST /renew is reported, and no watch answer is: none renewed.
      expect(t.log.filter((l) => l === `renew:${id}`)).toHaveLength(renewed.length);
      await t.finish();
      time.stop();
    }
  });
});
