/**
 * runDriver and CAP feature `cancel` against the real reference kernel over real sockets: a human's
 * cancel through the pod route stops the running handler (its signal aborted with a `CancelledError`,
 * nothing posted after it, the event acked `cancelled`, `onCancel` called, counted in the summary), the
 * watch is a long-poll that ends with its handler, a kernel without `cancel` gets no watch, and a renew
 * answered 409 with `details.cancelled` stops a handler the watch did not. Deadlines that prove the
 * watch did the work are shorter than the first renewal of a 30 s lease. A working watch keeps the lease
 * (the kernel renews it as each watch ends): a turn of three 3 s leases sends no renew at all, and one
 * whose watches fail is renewed as usual.
 */

import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CapClient } from "../../src/client.js";
import { CancelledError, CapHttpError } from "../../src/errors.js";
import { clientFor, hideFeatures, startDriver, stopAllDrivers } from "../helpers/drivers.js";

let long: TestKernel; // 30-second leases: a renew comes 15 s into a turn
let short: TestKernel; // 2-second leases: renewals every second
let three: TestKernel; // 3-second leases: a watch ends (and renews) every 2 s
beforeAll(async () => {
  [long, short, three] = await Promise.all([
    startKernel({ leaseSeconds: 30, agents: ["stopped", "quick", "plain"], listeners: [] }),
    startKernel({ leaseSeconds: 2, agents: ["renewer"], listeners: [] }),
    startKernel({ leaseSeconds: 3, agents: ["watcher", "unwatched"], listeners: [] }),
  ]);
});
afterEach(stopAllDrivers);
afterAll(async () => {
  await Promise.all([long?.stop(), short?.stop(), three?.stop()]);
});

const task = (title: string) => ({ taskId: title, title });

/** The pod route a human's Stop button calls. */
async function cancelAsHuman(kernel: TestKernel, eventId: string, reason?: string) {
  const { data } = await kernel.api.POST("/api/pods/{podId}/events/{eventId}/cancel", {
    params: { path: { podId: kernel.podId, eventId } },
    body: reason === undefined ? {} : { reason },
  });
  return data!;
}

/** A client whose watches are recorded: when each was sent, and whether it was answered or aborted. */
function watchedClient(kernel: TestKernel, agent: string) {
  const watches: Array<{ id: string; end?: "answered" | "aborted" }> = [];
  const client = clientFor(kernel, agent, {
    fetch: async (request: Request) => {
      const match = /\/events\/([^/]+)\/cancellation$/.exec(new URL(request.url).pathname);
      if (!match) return fetch(request);
      const watch: (typeof watches)[number] = { id: decodeURIComponent(match[1]!) };
      watches.push(watch);
      request.signal.addEventListener("abort", () => (watch.end ??= "aborted"), { once: true });
      const response = await fetch(request);
      await response.clone().text();
      watch.end ??= "answered";
      return response;
    },
  });
  return { client, watches };
}

/**
 * A client that counts its requests by route (`POST /renew`, `GET /cancellation`, …) and, with
 * `failWatches`, answers every watch 503 itself, as a proxy in front of the kernel might.
 */
function countingClient(kernel: TestKernel, agent: string, failWatches = false) {
  const counts = new Map<string, number>();
  const client = clientFor(kernel, agent, {
    fetch: (request: Request) => {
      const route = new URL(request.url).pathname.split("/").at(-1)!;
      const key = `${request.method} /${route}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (failWatches && route === "cancellation")
        return Promise.resolve(new Response("upstream unavailable", { status: 503 }));
      return fetch(request);
    },
  });
  return { client, count: (key: string) => counts.get(key) ?? 0 };
}

/** A promise that resolves when `signal` aborts. */
const abortOf = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

describe("runDriver stops a cancelled turn (cap-kernel)", () => {
  it("aborts the handler with the human's reason, posts nothing after it, acks it cancelled, and counts it", async () => {
    const id = await long.emit("stopped", "task.assigned", task("refactor the wrong repository"));
    let reason: unknown;
    let replyAfter: unknown;
    let running = false;
    const d = startDriver(clientFor(long, "stopped"), {
      handle: async (_event, ctx) => {
        await ctx.reply("starting on it");
        running = true;
        await abortOf(ctx.signal);
        reason = ctx.signal.reason;
        replyAfter = await ctx.reply("finished anyway").catch((e: unknown) => e);
      },
    });
    await eventually(() => running, "the handler runs");
    expect(await cancelAsHuman(long, id, "wrong repository")).toEqual({
      ok: true,
      status: "cancelled",
      changed: true,
    });
    // Well before the first renewal (15 s into the lease): the watch told the driver.
    await eventually(() => reason !== undefined, "the handler's signal aborts", { timeoutMs: 10_000 });
    expect(reason).toBeInstanceOf(CancelledError);
    expect(reason).toMatchObject({ code: "cancelled", reason: "wrong repository" });
    expect(replyAfter).toBe(reason);
    await eventually(() => d.rec.acks.some((a) => a.id === id), "the event is acked");
    expect(d.rec.acks).toEqual([{ id, outcome: "cancelled", duplicate: false }]);
    expect(d.rec.cancels).toEqual([{ id, reason: "wrong repository" }]);
    expect(d.rec.lost).toEqual([]);
    const queued = await long.state("stopped", id);
    expect(queued).toMatchObject({ state: "cancelled", cancelReason: "wrong repository" });
    expect(queued?.ackedAt).toEqual(expect.any(String));
    const mine = (await long.messages()).filter((m) => m.author.name === "stopped");
    expect(mine.map((m) => m.content)).toEqual(["starting on it"]);
    expect(await d.stop()).toMatchObject({ handled: 0, cancelled: 1, failures: 0, released: 0 });
  });

  it("watches a running handler with one long-poll at a time and aborts it when the handler ends; a quick handler is not watched", async () => {
    const slow = await long.emit("quick", "task.assigned", task("takes a second and a half"));
    await long.emit("quick", "task.assigned", task("takes no time"));
    const { client, watches } = watchedClient(long, "quick");
    const d = startDriver(client, {
      handle: async (event) => {
        if (event.id === slow) await new Promise((r) => setTimeout(r, 1500));
      },
    });
    await eventually(() => d.rec.acks.length === 2, "both events are acked");
    await eventually(() => watches.every((w) => w.end !== undefined), "no watch is left open");
    expect(watches).toEqual([{ id: slow, end: "aborted" }]);
    expect(d.rec.acks.map((a) => a.outcome)).toEqual(["acknowledged", "acknowledged"]);
    expect(await d.stop()).toMatchObject({ handled: 2, cancelled: 0 });
  });

  it("sends no watch to a kernel that does not advertise cancel", async () => {
    const id = await long.emit("plain", "task.assigned", task("a second and a half"));
    const { client, watches } = watchedClient(long, "plain");
    const d = startDriver(hideFeatures(client, "cancel"), {
      handle: () => new Promise((r) => setTimeout(r, 1500)),
    });
    await eventually(() => d.rec.acks.some((a) => a.id === id), "the event is acked");
    expect(watches).toEqual([]);
    await d.stop();
  });

  it("stops a handler whose renew is answered 409 with details.cancelled (no watch)", async () => {
    const id = await short.emit("renewer", "task.assigned", task("long turn"));
    const { client, watches } = watchedClient(short, "renewer");
    let reason: unknown;
    let running = false;
    const d = startDriver(hideFeatures(client, "cancel"), {
      handle: async (_event, ctx) => {
        running = true;
        await abortOf(ctx.signal);
        reason = ctx.signal.reason;
      },
    });
    await eventually(() => running && d.rec.renews.length > 0, "the handler runs and its lease is renewed");
    await cancelAsHuman(short, id);
    await eventually(() => d.rec.acks.some((a) => a.id === id), "the event is acked", { timeoutMs: 10_000 });
    expect(reason).toMatchObject({ code: "cancelled", reason: "requested" });
    const cause = (reason as CancelledError).cause;
    expect(cause).toBeInstanceOf(CapHttpError);
    expect(cause).toMatchObject({ status: 409, code: "lease_lost", details: { cancelled: true } });
    expect(d.rec.acks).toEqual([{ id, outcome: "cancelled", duplicate: false }]);
    expect(d.rec.lost).toEqual([]);
    expect(watches).toEqual([]);
    expect(await short.state("renewer", id)).toMatchObject({ state: "cancelled", cancelReason: "requested" });
    expect(await d.stop()).toMatchObject({ cancelled: 1 });
  });
});

describe("runDriver's watch keeps the lease (cap-kernel)", () => {
  /** A turn of three 3 s leases; a rival poller of the same agent meanwhile, who must get nothing. */
  async function turnOfThreeLeases(agent: string, client: CapClient) {
    const id = await three.emit(agent, "task.assigned", task("three leases long"));
    let running = false;
    const d = startDriver(client, {
      handle: async () => {
        running = true;
        await new Promise((r) => setTimeout(r, 9000));
      },
    });
    await eventually(() => running, "the handler runs");
    const rival = clientFor(three, agent);
    const stolen: string[] = [];
    await eventually(
      async () => {
        const { events } = await rival.poll({ limit: 10 });
        stolen.push(...events.map((e) => e.id));
        return stolen.length > 0 || d.rec.acks.length > 0;
      },
      "the driver acks the event (or the rival gets it)",
      { timeoutMs: 30_000, everyMs: 250 },
    );
    expect(stolen).toEqual([]);
    expect(d.rec.acks).toEqual([{ id, outcome: "acknowledged", duplicate: false }]);
    expect(d.rec.lost).toEqual([]);
    expect(await three.state(agent, id)).toMatchObject({ state: "acked", attempts: 1 });
    return { id, d };
  }

  it("sends no renew through a turn of three leases: each watch renews the lease (onRenew)", async () => {
    const { client, count } = countingClient(three, "watcher");
    const { id, d } = await turnOfThreeLeases("watcher", client);
    expect(count("POST /renew")).toBe(0);
    // A watch ends every 2 s (a third of the lease left), each one renewing the lease.
    expect(count("GET /cancellation")).toBeGreaterThanOrEqual(4);
    expect(d.rec.renews.length).toBeGreaterThanOrEqual(4);
    expect(d.rec.renews.every((r) => r === id)).toBe(true);
    expect(d.rec.errors).toEqual([]);
    expect(await d.stop()).toMatchObject({ handled: 1, released: 0 });
  });

  it("renews the lease itself while every watch fails (a proxy answers them 503)", async () => {
    const { client, count } = countingClient(three, "unwatched", true);
    const { d } = await turnOfThreeLeases("unwatched", client);
    expect(count("GET /cancellation")).toBeGreaterThanOrEqual(2);
    const watchErrors = d.rec.errors.filter((e) => e.stage === "watch").map((e) => e.error);
    expect(watchErrors.length).toBeGreaterThanOrEqual(2);
    for (const error of watchErrors) expect(error).toMatchObject({ status: 503 });
    // Every 1.5 s (half the lease) through a 9 s turn, each reported (one may be out as the ack goes).
    expect(count("POST /renew")).toBeGreaterThanOrEqual(4);
    expect(d.rec.renews.length).toBeGreaterThanOrEqual(4);
    expect(d.rec.renews.length).toBeLessThanOrEqual(count("POST /renew"));
    expect(await d.stop()).toMatchObject({ handled: 1, released: 0 });
  });
});
