/**
 * Runs the example as a user would (`node dist/echo.js` with CAP_URL and CAP_TOKEN) against a real
 * `cap-kernel`, and checks its effect through the kernel's admin API: a human's @mention gets the echo reply,
 * threaded under it, and its event is acked after one delivery; an event type the example does not handle
 * is acked too (runDriver skips it), so nothing is left to be redelivered.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  eventually,
  interposeProxy,
  type Spawned,
  spawnProcess,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const example = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "echo.js");
let kernel: TestKernel;
let driver: Spawned;

interface QueuedEvent {
  id: string;
  type: string;
  state: string;
  attempts: number;
  payload?: { messageId?: string };
}

async function eventsOf(agentName: string): Promise<QueuedEvent[]> {
  const queue = await kernel.admin.get(`/api/admin/pods/${kernel.podId}/queue`);
  return queue.agents.find((a: { agentName: string }) => a.agentName === agentName)?.events ?? [];
}

beforeAll(async () => {
  // Short leases: an event whose ack the outage refused comes back soon.
  kernel = await startKernel({ agents: ["echo-ts", "echo-ts-rider"], leaseSeconds: 5 });
  driver = spawnProcess(process.execPath, [example], {
    env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents["echo-ts"]!.token },
    name: "examples/echo-ts",
  });
});

afterAll(async () => {
  await driver?.stop();
  await kernel?.stop();
});

describe("examples/echo-ts against cap-kernel", () => {
  it("answers a human's @mention with an echo threaded under it, and acks the event once", async () => {
    const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
      content: "@echo-ts hello, TypeScript",
    });
    const reply = await eventually(async () => {
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=20`);
      return messages.find((m: { content: string }) => m.content === "echo: hello, TypeScript");
    }, "the echo reply in the pod");
    expect(reply.author).toMatchObject({ kind: "agent", name: "echo-ts" });
    expect(reply.replyToMessageId).toBe(posted.id);
    const acked = await eventually(
      async () =>
        (await eventsOf("echo-ts")).find((e) => e.type === "mention.received" && e.state === "acked"),
      "the mention.received event acked",
    );
    expect(acked.attempts).toBe(1);
  });

  it("acks an event type it does not handle instead of leaving it to be redelivered", async () => {
    const injected = await kernel.admin.post("/api/admin/events", {
      podId: kernel.podId,
      agentName: "echo-ts",
      type: "task.assigned",
      payload: { taskId: "t-1", title: "not for an echo" },
    });
    const settled = await eventually(
      async () => (await eventsOf("echo-ts")).find((e) => e.id === injected.id && e.state === "acked"),
      "the task.assigned event acked",
    );
    expect(settled.attempts).toBe(1);
    await eventually(
      () => driver.output().includes(`task.assigned ${injected.id}`),
      "the driver's log line for it",
    );
    expect(driver.output()).toContain(`task.assigned ${injected.id} attempt 1: skipped`);
  });

  it("rides through a store outage between its reply and its ack: the turn is answered once and acked", async () => {
    // A second instance of the driver, behind a proxy that takes the store away (503 store_unavailable)
    // the moment its reply was posted — before it acks — and gives it back once its ack was refused.
    let unlock: (() => void) | undefined;
    const refused: string[] = [];
    const proxy = await interposeProxy(kernel.url, ({ method, path, status }) => {
      if (status === 503) refused.push(`${method} ${path}`);
      if (!unlock && method === "POST" && path.includes("/messages") && status === 201)
        unlock = kernel.lockStore();
    });
    const rider = spawnProcess(process.execPath, [example], {
      env: { ...process.env, CAP_URL: proxy.url, CAP_TOKEN: kernel.agents["echo-ts-rider"]!.token },
      name: "examples/echo-ts (rider)",
    });
    try {
      const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
        content: "@echo-ts-rider outage",
      });
      await eventually(() => refused.some((r) => r.endsWith("/ack")), "the rider's ack refused with 503", {
        timeoutMs: 30_000,
      });
      unlock?.();
      await eventually(
        async () =>
          (await eventsOf("echo-ts-rider")).find(
            (e) => e.payload?.messageId === posted.id && e.state === "acked",
          ),
        "the rider's event acked",
      );
      await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
        content: "@echo-ts-rider after the outage",
      });
      await eventually(async () => {
        const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
        return messages.find(
          (m: { content: string; author: { name: string } }) =>
            m.content === "echo: after the outage" && m.author.name === "echo-ts-rider",
        );
      }, "the rider's echo after the outage");
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
      expect(
        messages.filter(
          (m: { content: string; author: { name: string } }) =>
            m.content === "echo: outage" && m.author.name === "echo-ts-rider",
        ),
      ).toHaveLength(1);
    } finally {
      await rider.stop();
      await proxy.close();
    }
  }, 90_000);
});

describe("examples/echo-ts stopped mid-turn", () => {
  it("aborts a `sleep 60` turn when a human cancels it: logged, nothing posted, acked cancelled", async () => {
    const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
      content: "@echo-ts sleep 60 please",
    });
    const event = await eventually(async () => {
      const e = (await eventsOf("echo-ts")).find((x) => x.payload?.messageId === posted.id);
      return e && driver.output().includes(`${e.id}: working 60 s`) ? e : undefined;
    }, "the driver works on the mention");
    const cancelled = await kernel.admin.post(`/api/pods/${kernel.podId}/events/${event.id}/cancel`, {
      reason: "not now",
    });
    expect(cancelled).toMatchObject({ status: "cancelled", changed: true });
    await eventually(
      () => driver.output().includes(`${event.id} was cancelled (not now): handler aborted`),
      "the driver logs the abort",
    );
    await eventually(
      () => driver.output().includes(`mention.received ${event.id} attempt 1: cancelled`),
      "the driver acks it cancelled",
    );
    const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
    expect(messages.filter((m: { replyToMessageId?: string }) => m.replyToMessageId === posted.id)).toEqual(
      [],
    );
    expect((await eventsOf("echo-ts")).find((x) => x.id === event.id)?.state).toBe("cancelled");
  });
});
