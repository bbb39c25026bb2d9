/**
 * runDriver holds every lease it takes, against the real reference kernel over real sockets: a
 * failed event comes back after its circuit's delay (not after a 30 s lease), waiting events are
 * renewed so a second poller never gets them, a stop releases what was not started, acks go through
 * batch ack exactly when /info advertises it, and a poll whose answer was lost is replayed by its
 * pollId. Waits are deadline polls; the deadlines are shorter than the lease wherever a pass must
 * not be explainable by a lease running out.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CapClient } from "../../src/client.js";
import { waitUntil } from "../helpers/deadline.js";
import { clientFor, hideFeatures, startDriver, stopAllDrivers } from "../helpers/drivers.js";
import { startKernel, type TestKernel } from "../helpers/kernel.js";

let long: TestKernel; // 30-second leases
let short: TestKernel; // 2-second leases
beforeAll(async () => {
  [long, short] = await Promise.all([
    startKernel({
      leaseSeconds: 30,
      agents: ["flaky", "stopper", "batcher", "single", "replayed"],
      listeners: [],
    }),
    startKernel({ leaseSeconds: 2, agents: ["slow"], listeners: [] }),
  ]);
});
afterEach(stopAllDrivers);
afterAll(async () => {
  await Promise.all([long?.dispose(), short?.dispose()]);
});

const task = (title: string) => ({ taskId: title, title });

/** A client that records the path of every request it sends. */
function recordingClient(kernel: TestKernel, agent: string) {
  const paths: string[] = [];
  const client = clientFor(kernel, agent, {
    fetch: (request: Request) => {
      paths.push(`${request.method} ${new URL(request.url).pathname.replace("/api/agents/runtime", "")}`);
      return fetch(request);
    },
  });
  return { client, paths };
}

describe("runDriver holds every lease it takes (cap-kernel)", () => {
  it("handles a failed event again after the circuit's 1 s delay, not after the 30 s lease", async () => {
    const id = await long.emit("flaky", "task.assigned", task("fails once"));
    const seen: Array<{ attempts: number; at: number }> = [];
    const d = startDriver(clientFor(long, "flaky"), {
      pollIntervalMs: 1000, // the runtime class's first retry delay: 1 s (+ the agent's 0–20 %)
      handle: (event) => {
        seen.push({ attempts: event.attempts, at: Date.now() });
        if (seen.length === 1) throw new Error("the model provider answered 503");
      },
    });
    await waitUntil(() => d.rec.acks.some((a) => a.id === id), "the retry is acked", { timeoutMs: 15_000 });
    expect(seen.map((s) => s.attempts)).toEqual([1, 2]);
    const gap = seen[1]!.at - seen[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(1000);
    expect(gap).toBeLessThan(15_000);
    expect(d.rec.releases).toEqual([
      {
        id,
        attempts: 1,
        delaySeconds: 1,
        reason: "handler failed (runtime, 1 in a row): the model provider answered 503",
        status: "pending",
      },
    ]);
    const queued = await long.admin<{ agents: Array<{ agentName: string; events: never[] }> }>(
      "GET",
      `/admin/pods/${long.podId}/queue`,
    );
    const event = queued.agents
      .find((a) => a.agentName === "flaky")!
      .events.find((e: { id: string }) => e.id === id) as unknown as {
      state: string;
      attempts: number;
      releaseReason: string | null;
    };
    expect(event).toMatchObject({ state: "acked", attempts: 2 });
    expect(event.releaseReason).toBe("handler failed (runtime, 1 in a row): the model provider answered 503");
    await d.stop();
  });

  it("renews the fetched events waiting behind a slow handler; a second poller never gets one", async () => {
    const ids = await Promise.all(
      [1, 2, 3].map((n) => short.emit("slow", "task.assigned", task(`slow ${n}`))),
    );
    const started: Array<[string, number]> = [];
    // Each turn outlasts the 2 s lease; the three together take three leases and more.
    const d = startDriver(clientFor(short, "slow"), {
      renewAt: 0.3,
      handle: async (event) => {
        started.push([event.id, event.attempts]);
        await new Promise((r) => setTimeout(r, 2500));
      },
    });
    await waitUntil(() => started.length === 1, "the driver holds the batch and runs its first");
    const rival = clientFor(short, "slow");
    const stolen: string[] = [];
    let rivalPolls = 0;
    await waitUntil(
      async () => {
        const { events } = await rival.poll({ limit: 10 });
        rivalPolls++;
        stolen.push(...events.map((e) => e.id));
        for (const e of events) await rival.ack(e.id); // keep a stolen one from coming back
        return stolen.length > 0 || d.rec.acks.length === 3;
      },
      "the driver acks all three (or the rival steals one)",
      { timeoutMs: 30_000, everyMs: 100 },
    );
    expect(stolen).toEqual([]);
    expect(rivalPolls).toBeGreaterThan(10);
    expect(started).toEqual(ids.map((id) => [id, 1]));
    // The third waited about two turns (5 s, two and a half leases): it was renewed while waiting.
    expect(d.rec.renews.filter((r) => r === ids[2]).length).toBeGreaterThanOrEqual(3);
    expect(d.rec.lost).toEqual([]);
    await d.stop();
  });

  it("on stop releases the fetched events it has not started; they are ready at once, not after the lease", async () => {
    // One after another: the releases are checked in queue order, which parallel emits would not fix.
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await long.emit("stopper", "task.assigned", task(`s${n}`)));
    let finish!: () => void;
    const d = startDriver(clientFor(long, "stopper"), {
      handle: () => new Promise<void>((resolve) => (finish = resolve)),
    });
    await waitUntil(() => finish !== undefined, "the first handler runs");
    const stopping = d.stop();
    finish();
    expect(await stopping).toMatchObject({ handled: 1, returned: 2, released: 0 });
    expect(d.rec.releases.map((r) => [r.id, r.delaySeconds, r.reason])).toEqual([
      [ids[1], 0, "not started: the driver is stopping"],
      [ids[2], 0, "not started: the driver is stopping"],
    ]);
    // Another poller gets them right away, as their second delivery.
    const { events } = await clientFor(long, "stopper").poll({ limit: 10 });
    expect(events.map((e) => [e.id, e.attempts])).toEqual([
      [ids[1], 2],
      [ids[2], 2],
    ]);
    expect((await long.state("stopper", ids[0]!))?.state).toBe("acked");
  });
});

describe("runDriver acks and polls (cap-kernel)", () => {
  const settle = async (client: CapClient, agent: string, count: number) => {
    const ids = await Promise.all(
      Array.from({ length: count }, (_, n) => long.emit(agent, "task.assigned", task(`${agent} ${n}`))),
    );
    const d = startDriver(client, { handle: () => {}, limit: count });
    await waitUntil(() => d.rec.acks.length === count, `all ${count} are acked`);
    await d.stop();
    for (const id of ids) expect((await long.state(agent, id))?.state).toBe("acked");
    return ids;
  };

  it("acks through POST /events/ack when /info advertises batch-ack", async () => {
    const { client, paths } = recordingClient(long, "batcher");
    await settle(client, "batcher", 5);
    expect(paths).toContain("POST /events/ack");
    expect(paths.filter((p) => /^POST \/events\/[^/]+\/ack$/.test(p) && p !== "POST /events/ack")).toEqual(
      [],
    );
  });

  it("acks one event per request when /info does not advertise batch-ack", async () => {
    const { client, paths } = recordingClient(long, "single");
    const ids = await settle(hideFeatures(client, "batch-ack"), "single", 3);
    expect(paths).not.toContain("POST /events/ack");
    expect(paths.filter((p) => p.endsWith("/ack")).sort()).toEqual(
      ids.map((id) => `POST /events/${id}/ack`).sort(),
    );
  });

  it("replays a poll whose answer was lost: the same deliveries, attempts 1, without waiting out the lease", async () => {
    const id = await long.emit("replayed", "task.assigned", task("lost answer"));
    const pollIds: string[] = [];
    let lost = false;
    const client = clientFor(long, "replayed", {
      fetch: async (request: Request) => {
        const url = new URL(request.url);
        if (url.pathname.endsWith("/events")) pollIds.push(url.searchParams.get("pollId") ?? "");
        const response = await fetch(request);
        if (!lost && url.pathname.endsWith("/events")) {
          const body = (await response.clone().json()) as { events: unknown[] };
          if (body.events.length > 0) {
            lost = true; // the kernel claimed, the answer never arrived
            await response.body?.cancel();
            throw new TypeError("fetch failed (answer dropped by test)");
          }
        }
        return response;
      },
    });
    const seen: number[] = [];
    const d = startDriver(client, { handle: (event) => void seen.push(event.attempts), waitSeconds: 1 });
    await waitUntil(() => d.rec.acks.some((a) => a.id === id), "the replayed delivery is acked", {
      timeoutMs: 15_000,
    });
    expect(lost).toBe(true);
    expect(seen).toEqual([1]);
    expect(d.rec.pollErrors.map((p) => p.code)).toEqual(["network"]);
    // The retry after the lost answer carried the same pollId; the poll after the replay a new one.
    await waitUntil(() => pollIds.length >= 3, "a poll after the replay");
    expect(pollIds[1]).toBe(pollIds[0]);
    expect(pollIds[2]).not.toBe(pollIds[0]);
    expect(await long.state("replayed", id)).toMatchObject({ state: "acked", attempts: 1 });
    await d.stop();
  });
});
