/**
 * runDriver against the real reference kernel (SQLite, 1-second leases) over real sockets.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CapSdkError } from "../../src/errors.js";
import { JsonFileHandledStore } from "../../src/node.js";
import { clientFor, faultyFetch, startDriver, stopAllDrivers } from "../helpers/drivers.js";

let kernel: TestKernel;
const dir = mkdtempSync(join(tmpdir(), "cap-sdk-driver-"));

beforeAll(async () => {
  // One agent per test: a driver stopped by one test cannot take events meant for the next.
  kernel = await startKernel({
    leaseSeconds: 1,
    agents: [
      "echo",
      "prompt",
      "abandon",
      "lostack",
      "longrun",
      "fenced",
      "graceful",
      "revoked",
      "batch0",
      "batch1",
      "batch2",
      "batch3",
      "batch4",
    ],
    listeners: [],
  });
});
afterEach(stopAllDrivers);
afterAll(async () => {
  await kernel?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const task = (title: string) => ({ taskId: title, title });

describe("runDriver against cap-kernel", () => {
  it("answers a human's @mention with a threaded reply (echo driver end to end)", async () => {
    const d = startDriver(clientFor(kernel, "echo"), {
      handle: {
        "mention.received": async (event, ctx) => void (await ctx.reply(`echo: ${event.payload.content}`)),
      },
    });
    const asked = await kernel.say("@echo what is 17 * 23?");
    const reply = await eventually(
      async () => (await kernel.messages()).find((m) => m.content === "echo: @echo what is 17 * 23?"),
      "the echo reply is in the pod",
    );
    expect(reply).toMatchObject({ replyToMessageId: asked, author: { name: "echo" } });
    await eventually(() => d.rec.acks.some((a) => a.outcome === "posted"), "the mention is acked posted");
    expect(d.rec.modes).toEqual(["long-poll"]);
    await d.stop();
  });

  it("delivers an event injected during a long-poll without waiting the poll out", async () => {
    const d = startDriver(clientFor(kernel, "prompt"), { handle: () => {}, waitSeconds: 20 });
    await eventually(() => d.rec.modes.length > 0, "the driver chose its poll mode");
    const emitted = Date.now();
    const id = await kernel.emit("prompt", "task.assigned", task("now"));
    await eventually(() => d.rec.acks.some((a) => a.id === id), "the injected event is acked");
    expect(Date.now() - emitted).toBeLessThan(5000);
    expect(d.rec.modes).toEqual(["long-poll"]);
    await d.stop();
  });

  it("redelivers an event whose driver stopped without acking, after its lease, with attempts 2", async () => {
    const id = await kernel.emit("abandon", "task.assigned", task("abandoned"));
    let started = false;
    const first = startDriver(clientFor(kernel, "abandon"), {
      shutdownTimeoutMs: 0,
      handle: () =>
        new Promise<void>(() => {
          started = true; // never finishes: this driver "crashes" mid-handler
        }),
    });
    await eventually(() => started, "the first driver is handling the event");
    expect(await first.stop()).toMatchObject({ released: 1, handled: 0 });
    expect((await kernel.state("abandon", id))?.attempts).toBe(1);

    const seen: number[] = [];
    const second = startDriver(clientFor(kernel, "abandon"), {
      handle: (event) => void seen.push(event.attempts),
    });
    await eventually(() => second.rec.acks.some((a) => a.id === id), "the second driver acks the redelivery");
    expect(seen).toEqual([2]);
    expect(await kernel.state("abandon", id)).toMatchObject({ state: "acked", attempts: 2 });
    await second.stop();
  });

  it("re-acks a redelivery without running the handler when the first ack was lost, across a restart", async () => {
    const path = join(dir, "handled.json");
    const id = await kernel.emit("lostack", "task.assigned", task("lost ack"));
    let calls = 0;
    // The single ack or the batch ack that carries it: both are lost.
    const dropAcks = faultyFetch((r) => r.url.endsWith(`/events/${id}/ack`) || r.url.endsWith("/events/ack"));
    const first = startDriver(
      clientFor(kernel, "lostack", { fetch: dropAcks, retry: { retries: 1, baseDelayMs: 1 } }),
      {
        store: new JsonFileHandledStore(path),
        handle: () => void calls++,
      },
    );
    await eventually(() => first.rec.errors.some((e) => e.stage === "ack"), "the first ack is lost");
    await first.stop();
    expect(calls).toBe(1);

    const second = startDriver(clientFor(kernel, "lostack"), {
      store: new JsonFileHandledStore(path),
      handle: () => void calls++,
    });
    await eventually(() => second.rec.acks.some((a) => a.id === id), "the redelivery is re-acked");
    expect(second.rec.acks.find((a) => a.id === id)).toMatchObject({
      duplicate: true,
      outcome: "acknowledged",
    });
    expect(calls).toBe(1);
    expect(await kernel.state("lostack", id)).toMatchObject({ state: "acked", attempts: 2 });
    await second.stop();
  });

  it("renews the lease while a handler runs past it; no other poller gets the event meanwhile", async () => {
    const id = await kernel.emit("longrun", "task.assigned", task("long"));
    let finish!: () => void;
    // A 1-second lease leaves little slack on a loaded CI machine: renew every 0.3 s.
    const d = startDriver(clientFor(kernel, "longrun"), {
      renewAt: 0.3,
      handle: () => new Promise<void>((resolve) => (finish = resolve)),
    });
    await eventually(
      () => d.rec.renews.filter((r) => r === id).length >= 7,
      "seven renewals (two lease lengths)",
    );
    const rival = clientFor(kernel, "longrun");
    expect((await rival.poll()).events.map((e) => e.id)).not.toContain(id);
    finish();
    await eventually(() => d.rec.acks.some((a) => a.id === id), "the long handler's event is acked");
    expect(await kernel.state("longrun", id)).toMatchObject({ state: "acked", attempts: 1 });
    await d.stop();
  });

  it("aborts the handler and does not ack when a renew finds the lease taken by another poller", async () => {
    const id = await kernel.emit("fenced", "task.assigned", task("fenced"));
    let blockRenews = true;
    let abortReason: unknown;
    let started = false;
    const d = startDriver(
      clientFor(kernel, "fenced", { fetch: faultyFetch((r) => blockRenews && r.url.endsWith("/renew")) }),
      {
        handle: (_event, ctx) =>
          new Promise<void>((resolve) => {
            started = true;
            ctx.signal.addEventListener("abort", () => {
              abortReason = ctx.signal.reason;
              resolve();
            });
          }),
      },
    );
    await eventually(() => started, "the driver is handling the event");
    const rival = clientFor(kernel, "fenced");
    const stolen = await eventually(
      async () => (await rival.poll({ waitSeconds: 1 })).events.find((e) => e.id === id),
      "the rival claims the event once the unrenewed lease ends",
    );
    expect(stolen.attempts).toBe(2);
    blockRenews = false;
    await eventually(() => d.rec.lost.includes(id), "the driver learns its lease was lost");
    expect(abortReason).toBeInstanceOf(CapSdkError);
    expect((abortReason as CapSdkError).code).toBe("lease_lost");
    expect(d.rec.acks.some((a) => a.id === id)).toBe(false);
    expect((await kernel.state("fenced", id))?.state).not.toBe("acked");
    expect(await d.stop()).toMatchObject({ released: 1 });
    await rival.ack(id);
  });

  it("lets the running handler finish on a graceful stop and acks it", async () => {
    const id = await kernel.emit("graceful", "task.assigned", task("finish me"));
    let release!: () => void;
    let started = false;
    const d = startDriver(clientFor(kernel, "graceful"), {
      shutdownTimeoutMs: 10_000,
      handle: () =>
        new Promise<void>((resolve) => {
          started = true;
          release = resolve;
        }),
    });
    await eventually(() => started, "the handler is running");
    const stopping = d.stop();
    release();
    expect(await stopping).toMatchObject({ handled: 1, released: 0 });
    expect((await kernel.state("graceful", id))?.state).toBe("acked");
  });

  it("stops with auth_stopped when its token is revoked mid-run", async () => {
    const d = startDriver(clientFor(kernel, "revoked"), { handle: () => {}, waitSeconds: 1 });
    await eventually(() => d.rec.modes.length > 0, "the driver is running");
    await kernel.revokeToken("revoked");
    const error = await d.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CapSdkError);
    expect((error as CapSdkError).code).toBe("auth_stopped");
    expect(((error as CapSdkError).cause as { code: string }).code).toBe("token_revoked");
    expect(d.rec.pollErrors.map((p) => p.code)).toEqual(["token_revoked", "token_revoked"]);
  });
});

describe("runDriver batch acks against cap-kernel", () => {
  // Handlers of one poll that all finish in the same tick share one batch ack (before, the first
  // ack of each poll went alone: two requests per poll). An agent per row: a stopped driver's
  // abandoned long-poll could claim the next row's events.
  it.each([
    { agent: "batch0", events: 10, limit: 10, concurrency: 1, handler: "sync", requests: 1 },
    { agent: "batch1", events: 10, limit: 10, concurrency: 1, handler: "async", requests: 1 },
    { agent: "batch2", events: 10, limit: 10, concurrency: 4, handler: "async", requests: 1 },
    { agent: "batch3", events: 25, limit: 10, concurrency: 1, handler: "sync", requests: 3 },
    { agent: "batch4", events: 6, limit: 3, concurrency: 1, handler: "async", requests: 2 },
  ])(
    "$events events, limit $limit, concurrency $concurrency, $handler handlers: $requests batch ack(s)",
    async ({ agent, events, limit, concurrency, handler, requests }) => {
      const ids: string[] = [];
      for (let n = 0; n < events; n++) ids.push(await kernel.emit(agent, "task.assigned", task(`b${n}`)));
      let ackRequests = 0;
      const client = clientFor(kernel, agent, {
        fetch: (request) => {
          if (request.method === "POST" && new URL(request.url).pathname.endsWith("/events/ack"))
            ackRequests++;
          return fetch(request);
        },
      });
      const d = startDriver(client, {
        limit,
        concurrency,
        handle: handler === "sync" ? () => {} : async () => {},
      });
      await eventually(() => ids.every((id) => d.rec.acks.some((a) => a.id === id)), "every event is acked");
      await d.stop();
      expect(ackRequests).toBe(requests);
      expect(d.rec.errors).toEqual([]);
    },
  );
});
