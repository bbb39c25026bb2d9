/**
 * Runs `python3 echo_driver.py` against a real `cap-kernel` and checks its effect through the kernel:
 * the echo reply to a human's @mention is in the pod, threaded under it (a message that mentions no one
 * gets none); the event is acked after one delivery;
 * the driver's memory counts its echoes (read back through CAP `GET /memory` with its token); an event type
 * it does not handle is acked as skipped.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, interposeProxy, spawnProcess, startKernel } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "echo_driver.py");
let kernel;
let driver;
let token;

const eventsOf = async (name) =>
  (await kernel.admin.get(`/api/admin/pods/${kernel.podId}/queue`)).agents.find((a) => a.agentName === name)
    ?.events ?? [];

async function echoOf(content) {
  return eventually(async () => {
    const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
    return messages.find((m) => m.content === `echo: ${content}`);
  }, `the echo of "${content}"`);
}

beforeAll(async () => {
  // Short leases: an event whose ack the outage refused comes back soon.
  kernel = await startKernel({ agents: ["echo-py", "echo-py-rider"], leaseSeconds: 5 });
  token = kernel.agents["echo-py"].token;
  driver = spawnProcess("python3", ["-u", script], {
    env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: token },
    name: "examples/python",
  });
});

afterAll(async () => {
  await driver?.stop();
  await kernel?.stop();
});

describe("examples/python against cap-kernel", () => {
  it("polls, posts the echo threaded under the @mention, and acks the event once", async () => {
    const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
      content: "@echo-py hello, Python",
    });
    const reply = await echoOf("hello, Python");
    expect(reply.author).toMatchObject({ kind: "agent", name: "echo-py" });
    expect(reply.replyToMessageId).toBe(posted.id);
    const ev = await eventually(
      async () =>
        (await eventsOf("echo-py")).find((e) => e.type === "mention.received" && e.state === "acked"),
      "the event acked",
    );
    expect(ev.attempts).toBe(1);
  });

  it("keeps a count of its echoes in memory", async () => {
    await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, { content: "@echo-py second" });
    await echoOf("second");
    const memory = await eventually(async () => {
      const res = await fetch(`${kernel.url}/api/agents/runtime/memory`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await res.json();
      return body.sections?.long_term?.content?.startsWith("echoes: 2") ? body : undefined;
    }, "memory to count two echoes");
    expect(memory.sections.long_term.content).toBe("echoes: 2 (last: second)");
    expect(memory.content).toBe(memory.sections.long_term.content);
    expect(memory.sourceRuntime).toBe("example-python");
  });

  it("acks a message that does not mention it as skipped, without a reply", async () => {
    const plain = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, { content: "no one here" });
    const ev = await eventually(
      async () =>
        (await eventsOf("echo-py")).find((e) => e.payload?.messageId === plain.id && e.state === "acked"),
      "the message.posted event acked",
    );
    expect(ev.type).toBe("message.posted");
    await eventually(() => driver.output().includes(`message.posted ${ev.id}`), "the driver's log line");
    expect(driver.output()).toContain(`message.posted ${ev.id} attempt 1: skipped`);
    const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
    expect(messages.filter((m) => m.replyToMessageId === plain.id)).toEqual([]);
  });

  it("acks an event type it does not handle as skipped", async () => {
    const injected = await kernel.admin.post("/api/admin/events", {
      podId: kernel.podId,
      agentName: "echo-py",
      type: "summary.ready",
      payload: { summaryId: "s-1", content: "not for an echo" },
    });
    await eventually(
      async () => (await eventsOf("echo-py")).find((e) => e.id === injected.id && e.state === "acked"),
      "the summary.ready event acked",
    );
    await eventually(() => driver.output().includes(`summary.ready ${injected.id}`), "the driver's log line");
    expect(driver.output()).toContain(`summary.ready ${injected.id} attempt 1: skipped`);
  });

  it("rides through a store outage between its turn and its ack: the turn is answered once and acked", async () => {
    // A second instance of the driver, behind a proxy that takes the store away (503 store_unavailable)
    // the moment its turn is done (reply posted, memory written) — before it acks — and gives it back
    // once the kernel has refused it.
    let unlock;
    const refused = [];
    const proxy = await interposeProxy(kernel.url, ({ method, path, status }) => {
      if (status === 503) refused.push(`${method} ${path}`);
      if (!unlock && method === "PUT" && path.endsWith("/memory") && status === 200)
        unlock = kernel.lockStore();
    });
    const rider = spawnProcess("python3", ["-u", script], {
      env: { ...process.env, CAP_URL: proxy.url, CAP_TOKEN: kernel.agents["echo-py-rider"].token },
      name: "examples/python (rider)",
    });
    try {
      const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
        content: "@echo-py-rider outage",
      });
      await eventually(() => unlock !== undefined, "the store to be taken away");
      await eventually(() => refused.some((r) => r.endsWith("/ack")), "the rider's ack refused with 503", {
        timeoutMs: 30_000,
      });
      unlock();
      await eventually(
        async () =>
          (await eventsOf("echo-py-rider")).find(
            (e) => e.payload?.messageId === posted.id && e.state === "acked",
          ),
        "the rider's event acked",
      );
      await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
        content: "@echo-py-rider after the outage",
      });
      await eventually(async () => {
        const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
        return messages.find(
          (m) => m.content === "echo: after the outage" && m.author.name === "echo-py-rider",
        );
      }, "the rider's echo after the outage");
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
      expect(
        messages.filter((m) => m.content === "echo: outage" && m.author.name === "echo-py-rider"),
      ).toHaveLength(1);
      expect(rider.output()).not.toMatch(/Traceback/);
    } finally {
      await rider.stop();
      await proxy.close();
    }
  }, 90_000);
});
