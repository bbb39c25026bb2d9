/**
 * Runs `echo.sh` (bash, curl, jq) against a real `cap-kernel` and checks its effect through the kernel:
 * the echo reply is in the pod, threaded under the human's message, with quotes and `$` intact; the event
 * is acked after one delivery; an event type the script does not handle is acked as skipped.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, interposeProxy, spawnProcess, startKernel } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "echo.sh");
let kernel;
let driver;

for (const tool of ["curl", "jq"]) {
  try {
    execFileSync(tool, ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error(`examples/bash-curl needs ${tool} on PATH (Debian: apt-get install -y ${tool})`);
  }
}

const eventsOf = async (name) =>
  (await kernel.admin.get(`/api/admin/pods/${kernel.podId}/queue`)).agents.find((a) => a.agentName === name)
    ?.events ?? [];

beforeAll(async () => {
  // Short leases: an event whose ack the outage refused comes back soon.
  kernel = await startKernel({ agents: ["echo-sh", "echo-sh-rider"], leaseSeconds: 5 });
  driver = spawnProcess("bash", [script], {
    env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents["echo-sh"].token },
    name: "examples/bash-curl",
  });
});

afterAll(async () => {
  await driver?.stop();
  await kernel?.stop();
});

describe("examples/bash-curl against cap-kernel", () => {
  it("posts the echo threaded under the @mention, content intact, and acks the event once", async () => {
    const content = `it's "quoted" and costs $5 — ok?`;
    const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
      content: `@echo-sh ${content}`,
    });
    const reply = await eventually(async () => {
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=20`);
      return messages.find((m) => m.content === `echo: ${content}`);
    }, "the echo reply");
    expect(reply.author).toMatchObject({ kind: "agent", name: "echo-sh" });
    expect(reply.replyToMessageId).toBe(posted.id);
    const ev = await eventually(
      async () =>
        (await eventsOf("echo-sh")).find((e) => e.type === "mention.received" && e.state === "acked"),
      "the event acked",
    );
    expect(ev.attempts).toBe(1);
  });

  it("acks a message that does not mention it as skipped, and mentions no agent in a reply", async () => {
    const plain = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, { content: "no one here" });
    const asked = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
      content: "@echo-sh ask @someone-else",
    });
    const ev = await eventually(
      async () =>
        (await eventsOf("echo-sh")).find((e) => e.payload?.messageId === plain.id && e.state === "acked"),
      "the message.posted event acked",
    );
    await eventually(
      () => driver.output().includes(`message.posted ${ev.id}: skipped`),
      "the driver's log line",
    );
    const reply = await eventually(async () => {
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
      return messages.find((m) => m.replyToMessageId === asked.id);
    }, "the reply to the mention");
    expect(reply.content).toBe("echo: ask someone-else");
    const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
    expect(messages.filter((m) => m.replyToMessageId === plain.id)).toEqual([]);
  });

  it("acks an event type it does not handle as skipped", async () => {
    const injected = await kernel.admin.post("/api/admin/events", {
      podId: kernel.podId,
      agentName: "echo-sh",
      type: "task.assigned",
      payload: { taskId: "t-1", title: "not for an echo" },
    });
    await eventually(
      async () => (await eventsOf("echo-sh")).find((e) => e.id === injected.id && e.state === "acked"),
      "the task.assigned event acked",
    );
    await eventually(() => driver.output().includes(`task.assigned ${injected.id}`), "the script's log line");
    expect(driver.output()).toContain(`task.assigned ${injected.id}: skipped`);
  });

  it("rides through a store outage between its reply and its ack: the turn is answered once and acked", async () => {
    // A second instance of the driver, behind a proxy that takes the store away (503 store_unavailable)
    // the moment its reply was posted — before it acks — and gives it back once its ack was refused.
    let unlock;
    const refused = [];
    const proxy = await interposeProxy(kernel.url, ({ method, path, status }) => {
      if (status === 503) refused.push(`${method} ${path}`);
      if (!unlock && method === "POST" && path.includes("/messages") && status === 201)
        unlock = kernel.lockStore();
    });
    const rider = spawnProcess("bash", [script], {
      env: { ...process.env, CAP_URL: proxy.url, CAP_TOKEN: kernel.agents["echo-sh-rider"].token },
      name: "examples/bash-curl (rider)",
    });
    try {
      const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
        content: "@echo-sh-rider outage",
      });
      await eventually(() => refused.some((r) => r.endsWith("/ack")), "the rider's ack refused with 503", {
        timeoutMs: 30_000,
      });
      unlock();
      await eventually(
        async () =>
          (await eventsOf("echo-sh-rider")).find(
            (e) => e.payload?.messageId === posted.id && e.state === "acked",
          ),
        "the rider's event acked",
      );
      await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
        content: "@echo-sh-rider after the outage",
      });
      await eventually(async () => {
        const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
        return messages.find(
          (m) => m.content === "echo: after the outage" && m.author.name === "echo-sh-rider",
        );
      }, "the rider's echo after the outage");
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
      expect(
        messages.filter((m) => m.content === "echo: outage" && m.author.name === "echo-sh-rider"),
      ).toHaveLength(1);
    } finally {
      await rider.stop();
      await proxy.close();
    }
  }, 90_000);
});
