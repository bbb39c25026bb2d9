import { eventually } from "@commonly/cap-kernel/testing";
import { describe, expect, it } from "vitest";
import type { DriverOptions } from "../../src/driver-types.js";
import { CapHttpError, CapSdkError } from "../../src/errors.js";
import { MemoryHandledStore } from "../../src/handled-store.js";
import { j, setup, time } from "../helpers/driver-setup.js";
import { httpError } from "../helpers/fake-kernel.js";

describe("runDriver", () => {
  it("acks each event with what the handler returned, or acknowledged by default", async () => {
    const t = setup();
    const a = t.kernel.enqueue("task.assigned", { taskId: "1", title: "x" });
    const b = t.kernel.enqueue("heartbeat.tick", {});
    t.start({
      handle: (event) =>
        event.type === "task.assigned" ? { outcome: "no_action", reason: "nothing" } : undefined,
    });
    await eventually(() => t.kernel.acks.length === 2, "both events are acked");
    expect(t.kernel.acks).toEqual([
      { id: a, result: { outcome: "no_action", reason: "nothing" } },
      { id: b, result: { outcome: "acknowledged" } },
    ]);
    expect(await t.finish()).toMatchObject({ handled: 2, failures: 0 });
  });

  it("acks posted with the message id after ctx.reply, threaded and keyed by the event id", async () => {
    const t = setup();
    const id = t.kernel.enqueue("mention.received", { messageId: "msg_h", content: "@bot hi" });
    t.start({ handle: async (event, ctx) => void (await ctx.reply(`echo: ${event.payload.content}`)) });
    await eventually(() => t.kernel.acks.length === 1, "the mention is acked");
    expect(t.kernel.posts).toEqual([
      {
        podId: "pod_1",
        content: "echo: @bot hi",
        replyToMessageId: "msg_h",
        key: expect.stringContaining(id),
      },
    ]);
    expect(t.kernel.acks[0]!.result).toEqual({ outcome: "posted", messageId: "msg_1" });
    await t.finish();
  });

  it("posts a redelivered event's reply once: the idempotency key is the same on every delivery", async () => {
    const t = setup();
    t.kernel.enqueue("mention.received", { messageId: "m" });
    let calls = 0;
    t.start({
      handle: async (_event, ctx) => {
        await ctx.reply("answer");
        if (++calls === 1) throw new Error("crashed after posting");
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the redelivery is acked");
    expect(calls).toBe(2);
    expect(t.kernel.posts).toHaveLength(1);
    await t.finish();
  });

  it("re-acks a duplicate delivery with the first result without running the handler", async () => {
    const store = new MemoryHandledStore();
    store.set("evt_seen", { outcome: "posted", messageId: "msg_9" });
    const t = setup({ store });
    t.kernel.enqueue("task.assigned", {}, { id: "evt_seen" });
    let calls = 0;
    const acks: boolean[] = [];
    t.start({ handle: () => void calls++, onAck: (a) => acks.push(a.duplicate) });
    await eventually(() => t.kernel.acks.length === 1, "the duplicate is acked");
    expect(calls).toBe(0);
    expect(acks).toEqual([true]);
    expect(t.kernel.acks[0]).toEqual({ id: "evt_seen", result: { outcome: "posted", messageId: "msg_9" } });
    expect(await t.finish()).toMatchObject({ duplicates: 1, handled: 0 });
  });

  it("remembers a handled event before acking, so a lost ack does not rerun the handler", async () => {
    const t = setup();
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    t.kernel.enqueue("task.assigned", {});
    let calls = 0;
    const realAck = t.kernel.ack.bind(t.kernel);
    let dropped = false;
    t.kernel.ack = async (id, result) => {
      if (!dropped) {
        dropped = true;
        throw new CapSdkError("network", "connection reset");
      }
      return realAck(id, result);
    };
    const errors: string[] = [];
    t.start({ handle: () => void calls++, onError: (e) => errors.push(e.stage) });
    await eventually(() => t.kernel.acks.length === 1, "the redelivery is re-acked");
    expect(calls).toBe(1);
    expect(errors).toEqual(["ack"]);
    expect(await t.finish()).toMatchObject({ handled: 1, duplicates: 1 });
  });

  // given handlers and an event type, want the ack outcome and who handled it.
  const unknownTypes: Array<[string, Partial<DriverOptions>, string, string]> = [
    [
      "a map without the type and no onUnknown",
      { handle: { "task.assigned": () => {} } },
      "skipped",
      "nobody",
    ],
    [
      "a map without the type and an onUnknown",
      { handle: { "task.assigned": () => {} }, onUnknown: () => ({ outcome: "no_action" }) },
      "no_action",
      "onUnknown",
    ],
    ["a single function", { handle: () => ({ outcome: "error", reason: "mine" }) }, "error", "handle"],
  ];
  for (const [name, handlers, outcome] of unknownTypes) {
    it(`acks an unknown type (curate) with ${outcome} given ${name}`, async () => {
      const t = setup(handlers);
      t.kernel.enqueue("curate", {});
      t.start();
      await eventually(() => t.kernel.acks.length === 1, "the unknown event is acked");
      expect(t.kernel.acks[0]!.result?.outcome).toBe(outcome);
      await t.finish();
    });
  }

  it("on a handler failure does not ack, stops the batch and waits the circuit delay", async () => {
    const t = setup();
    const first = t.kernel.enqueue("task.assigned", { n: 1 });
    t.kernel.enqueue("task.assigned", { n: 2 });
    const seen: unknown[] = [];
    let fail = true;
    t.start({
      handle: (event) => {
        seen.push(event.payload.n);
        if (fail) {
          fail = false;
          throw new Error("model crashed");
        }
      },
    });
    await eventually(() => t.kernel.acks.length === 2, "both events are eventually acked");
    // The second event was not started in the failed batch: both came back after their leases,
    // oldest first.
    expect(seen).toEqual([1, 1, 2]);
    expect(t.log).toContain(`circuit:runtime:1:${j(1000)}`);
    expect(t.kernel.acks.map((a) => a.id)).toContain(first);
    await t.finish();
  });

  it("follows the ADR-005 delays for a streak of failures and resets on a completed turn", async () => {
    const t = setup();
    t.kernel.leaseSeconds = 1;
    t.kernel.maxAttempts = 100;
    t.kernel.enqueue("task.assigned", {});
    const classes = ["runtime", "runtime", "runtime", "rate_limit", "quota", "runtime"];
    let turn = 0;
    t.start({
      handle: () => {
        const kind = classes[turn++];
        if (kind) throw Object.assign(new Error("adapter failed"), { kind });
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the event finally succeeds");
    expect(t.log.filter((l) => l.startsWith("circuit:"))).toEqual([
      `circuit:runtime:1:${j(1000)}`,
      `circuit:runtime:2:${j(2000)}`,
      `circuit:runtime:3:${j(60_000)}`,
      `circuit:rate_limit:4:${j(120_000)}`,
      `circuit:quota:5:${j(900_000)}`,
      `circuit:runtime:6:${j(900_000)}`,
    ]);
    await t.finish();
  });

  it("renews the lease while a long handler runs, fenced by attempts, and acks at the end", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    t.start({ handle: () => time.sleep(100_000) });
    await eventually(() => t.kernel.acks.length === 1, "the long handler's event is acked");
    // lease 30 s, renew at half: 15, 30, 45, … s.
    expect(t.kernel.renews.length).toBeGreaterThanOrEqual(6);
    expect(t.kernel.renews.every((r) => r.id === id && r.attempts === 1)).toBe(true);
    expect(t.kernel.rows[0]!.event.attempts).toBe(1);
    await t.finish();
  });

  it("aborts the handler's signal and does not ack when the lease is lost", async () => {
    const t = setup();
    const id = t.kernel.enqueue("task.assigned", {});
    t.kernel.renewErrors.push(httpError(409, "lease_lost"));
    let reason: unknown;
    t.start({
      handle: (event, ctx) =>
        event.attempts === 1
          ? new Promise<void>((resolve) =>
              ctx.signal.addEventListener("abort", () => {
                reason = ctx.signal.reason;
                resolve();
              }),
            )
          : undefined,
    });
    await eventually(() => t.kernel.acks.length === 1, "the redelivery is acked");
    expect(t.log).toContain(`lost:${id}`);
    expect(reason).toBeInstanceOf(CapSdkError);
    expect((reason as CapSdkError).code).toBe("lease_lost");
    expect(t.kernel.acks).toHaveLength(1);
    expect(await t.finish()).toMatchObject({ released: 1, handled: 1 });
  });

  it("stops with auth_stopped after three consecutive 401/403 answers to polls", async () => {
    const t = setup();
    t.kernel.pollErrors.push(httpError(401, "token_revoked"), httpError(403, "not_installed"));
    t.kernel.pollErrors.push(httpError(401, "token_revoked"));
    const error = await t.start().catch((e) => e);
    expect(error).toBeInstanceOf(CapSdkError);
    expect(error.code).toBe("auth_stopped");
    expect(error.message).toMatch(/re-attach/);
  });

  it("keeps going when the 401s are not consecutive, backing off on every poll failure", async () => {
    const t = setup();
    const unavailable = httpError(503, "unavailable");
    t.kernel.pollErrors.push(httpError(401, "token_unknown"), httpError(401, "token_unknown"), unavailable);
    t.kernel.pollErrors.push(httpError(401, "token_unknown"), unavailable, unavailable);
    const delays: number[] = [];
    t.start({ onPollError: (p) => delays.push(p.delayMs) });
    await eventually(() => t.kernel.pollErrors.length === 0 && t.kernel.polls.length > 7, "polls go on");
    expect(delays).toEqual([j(1000), j(2000), j(4000), j(8000), j(16000), j(32000)]);
    expect(await t.finish()).toMatchObject({ failures: 0 });
  });

  it("never polls again sooner than a 429 or 503's Retry-After (CAP-DRV-12)", async () => {
    const t = setup();
    const slowDown = (status: number, seconds: number) =>
      new CapHttpError({
        status,
        code: "rate_limited",
        message: "wait",
        operation: "TEST",
        retryAfterSeconds: seconds,
      });
    t.kernel.pollErrors.push(slowDown(429, 7), slowDown(503, 1));
    const delays: number[] = [];
    t.start({ onPollError: (p) => delays.push(p.delayMs) });
    await eventually(() => delays.length === 2, "two poll failures");
    expect(delays).toEqual([7000, j(2000)]);
    await t.finish();
  });

  it("caps poll backoff at 15 minutes", async () => {
    const t = setup();
    for (let i = 0; i < 14; i++) t.kernel.pollErrors.push(new CapSdkError("network", "refused"));
    const delays: number[] = [];
    t.start({ onPollError: (p) => delays.push(p.delayMs) });
    await eventually(() => delays.length === 14, "14 poll failures");
    expect(delays.at(-1)).toBe(j(900_000));
    await t.finish();
  });

  it("long-polls when /info advertises it, with waitSeconds capped by maxWaitSeconds", async () => {
    const t = setup();
    t.start({ waitSeconds: 60 });
    await eventually(() => t.kernel.polls.length >= 3, "three polls");
    expect(t.kernel.polls[0]).toMatchObject({ limit: 10, waitSeconds: 25 });
    expect(t.log[0]).toBe("mode:long-poll");
    await t.finish();
  });

  it("falls back to interval polling when the kernel answers long-polls at once", async () => {
    const t = setup();
    t.kernel.infoMode = "absent";
    t.kernel.ignoreWait = true;
    t.start();
    await eventually(() => t.kernel.polls.length >= 5, "five polls");
    expect(t.log.slice(0, 2)).toEqual(["mode:long-poll", "mode:interval"]);
    expect(t.kernel.polls.slice(0, 2).every((p) => p.waitSeconds === 20)).toBe(true);
    expect(t.kernel.polls.slice(2).every((p) => p.waitSeconds === undefined)).toBe(true);
    const gaps = t.kernel.polls.slice(3).map((p, i) => p.at - t.kernel.polls[i + 2]!.at);
    expect(gaps.every((g) => g === 1000)).toBe(true);
    await t.finish();
  });

  it("polls at the interval from the start when /info lacks long-poll", async () => {
    const t = setup();
    t.kernel.features = ["renew"];
    t.start();
    await eventually(() => t.kernel.polls.length >= 2, "two polls");
    expect(t.log[0]).toBe("mode:interval");
    expect(t.kernel.polls[0]!.waitSeconds).toBeUndefined();
    await t.finish();
  });

  it("lets the running handler finish on stop, acks it, and resolves", async () => {
    const t = setup({ shutdownTimeoutMs: 60_000 });
    t.kernel.enqueue("task.assigned", {});
    let started = false;
    const running = t.start({
      handle: async () => {
        started = true;
        await time.sleep(30_000);
      },
    });
    await eventually(() => started, "the handler started");
    t.stop.abort();
    expect(await running).toMatchObject({ handled: 1, released: 0 });
    expect(t.kernel.acks).toHaveLength(1);
  });

  it("releases the running handler without an ack when shutdown runs out of time", async () => {
    const t = setup({ shutdownTimeoutMs: 5_000 });
    t.kernel.enqueue("task.assigned", {});
    t.kernel.enqueue("task.assigned", {});
    let aborted = false;
    const running = t.start({
      handle: (_e, ctx) =>
        new Promise<void>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve();
          });
        }),
    });
    await eventually(() => t.kernel.rows[0]!.event.attempts === 1, "the first event is claimed");
    await eventually(() => time.sleeps.length > 0, "the handler is running");
    t.stop.abort();
    expect(await running).toMatchObject({ handled: 0, released: 1 });
    expect(aborted).toBe(true);
    expect(t.kernel.acks).toHaveLength(0);
  });

  it("runs pods concurrently when asked but never two events of one pod at once", async () => {
    const t = setup({ concurrency: 3 });
    for (const pod of ["a", "a", "b", "b", "c"]) t.kernel.enqueue("task.assigned", {}, { podId: pod });
    const active = new Map<string, number>();
    let maxPerPod = 0;
    let maxTotal = 0;
    t.start({
      handle: async (event) => {
        active.set(event.podId, (active.get(event.podId) ?? 0) + 1);
        maxPerPod = Math.max(maxPerPod, ...active.values());
        maxTotal = Math.max(
          maxTotal,
          [...active.values()].reduce((x, y) => x + y, 0),
        );
        await time.sleep(1000);
        active.set(event.podId, active.get(event.podId)! - 1);
      },
    });
    await eventually(() => t.kernel.acks.length === 5, "all five are acked");
    expect(maxPerPod).toBe(1);
    expect(maxTotal).toBeGreaterThan(1);
    await t.finish();
  });

  it("ignores hooks that throw", async () => {
    const t = setup();
    t.kernel.enqueue("task.assigned", {});
    t.start({
      onEvent: () => {
        throw new Error("logger broke");
      },
      onAck: () => {
        throw new Error("metrics broke");
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked anyway");
    await t.finish();
  });

  it("resolves at once when the signal is already aborted", async () => {
    const t = setup();
    t.stop.abort();
    expect(await t.start()).toEqual({
      polls: 0,
      handled: 0,
      duplicates: 0,
      skipped: 0,
      failures: 0,
      released: 0,
      returned: 0,
      cancelled: 0,
    });
  });
});
