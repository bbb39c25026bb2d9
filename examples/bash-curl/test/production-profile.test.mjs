/**
 * The same example against `cap-kernel serve --profile production` (the production kernel's dialect): an
 * @mention arrives as chat.mention and is echoed, threaded under it, although posts answer 200 {success,
 * message}; a heartbeat arrives as heartbeat and is acked as skipped.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, spawnProcess, startKernel } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "echo.sh");
let kernel;
let driver;

const eventsOf = async (name) =>
  (await kernel.admin.get(`/api/admin/pods/${kernel.podId}/queue`)).agents.find((a) => a.agentName === name)
    ?.events ?? [];

beforeAll(async () => {
  kernel = await startKernel({ agents: ["echo-sh"], profile: "production" });
  driver = spawnProcess("bash", [script], {
    env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents["echo-sh"].token },
    name: "examples/bash-curl (production profile)",
  });
});

afterAll(async () => {
  await driver?.stop();
  await kernel?.stop();
});

describe("examples/bash-curl against cap-kernel --profile production", () => {
  it("echoes an @mention delivered as chat.mention, threaded under it, and acks it once", async () => {
    const posted = await kernel.admin.post(`/api/pods/${kernel.podId}/messages`, {
      content: "@echo-sh hello",
    });
    const reply = await eventually(async () => {
      const { messages } = await kernel.admin.get(`/api/pods/${kernel.podId}/messages?limit=50`);
      return messages.find((m) => m.content === "echo: hello");
    }, "the echo");
    expect(reply.author).toMatchObject({ kind: "agent", name: "echo-sh" });
    expect(reply.replyToMessageId).toBe(posted.id);
    const ev = await eventually(
      async () =>
        (await eventsOf("echo-sh")).find((e) => e.type === "mention.received" && e.state === "acked"),
      "the mention acked",
    );
    expect(ev.attempts).toBe(1);
    await eventually(() => driver.output().includes(`chat.mention ${ev.id}`), "the driver's log line");
    expect(driver.output()).toContain(`chat.mention ${ev.id}: posted`);
  });

  it("acks a heartbeat, delivered as heartbeat, as skipped", async () => {
    const injected = await kernel.admin.post("/api/admin/events", {
      podId: kernel.podId,
      agentName: "echo-sh",
      type: "heartbeat.tick",
      payload: { tickAt: new Date().toISOString() },
    });
    await eventually(
      async () => (await eventsOf("echo-sh")).find((e) => e.id === injected.id && e.state === "acked"),
      "the heartbeat acked",
    );
    await eventually(() => driver.output().includes(`heartbeat ${injected.id}`), "the driver's log line");
    expect(driver.output()).toContain(`heartbeat ${injected.id}: skipped`);
  });
});
