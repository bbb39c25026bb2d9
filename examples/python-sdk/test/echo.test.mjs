/**
 * The README's proof, run as a user would: `python3 -m venv v && v/bin/pip install ./sdk-py`, then
 * `CAP_URL=… CAP_TOKEN=… v/bin/python examples/python-sdk/echo.py` against `cap-kernel demo` with the demo's
 * "helper" agent token; a human's @mention in the demo pod gets the echo, threaded under it, and the event
 * is acked `posted` after one delivery; beside the demo's echo, a message gets exactly one reply per agent
 * it mentions and none otherwise, with no chain; another event type is acked `skipped`; SIGTERM stops it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { adminClient, eventually, kernelBin, spawnProcess } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const work = mkdtempSync(join(tmpdir(), "cap-example-python-sdk-"));
let demo;
let driver;
let seed;
let admin;

beforeAll(async () => {
  // The README's install command, from the repository root.
  execFileSync(python, ["-m", "venv", join(work, "v")], { cwd: root, stdio: "inherit" });
  // With every package source taken away from pip: the SDK must install from its folder alone.
  const noIndex = { PIP_NO_INDEX: "1", PIP_CONFIG_FILE: "/dev/null", PIP_DISABLE_PIP_VERSION_CHECK: "1" };
  execFileSync(join(work, "v", "bin", "pip"), ["install", "./sdk-py"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...noIndex },
  });
  demo = spawnProcess(
    process.execPath,
    [kernelBin(), "demo", "--db", `sqlite:${join(work, "demo.db")}`, "--port", "0"],
    { name: "cap-kernel demo" },
  );
  const output = await demo.waitForOutput(/agent "helper" (cm_agent_[0-9a-f]{64})/);
  const text = demo.output();
  seed = {
    url: text.match(/running at (http:\/\/\S+)/)[1],
    podId: text.match(/pod id\s+(\S+)/)[1],
    humanToken: text.match(/human token\s+(\S+)/)[1],
    helperToken: output[1],
  };
  admin = adminClient(seed.url, seed.humanToken);
  driver = spawnProcess(join(work, "v", "bin", "python"), [join(root, "examples", "python-sdk", "echo.py")], {
    env: { ...process.env, CAP_URL: seed.url, CAP_TOKEN: seed.helperToken },
    name: "examples/python-sdk",
  });
});

afterAll(async () => {
  await driver?.stop();
  await demo?.stop();
  rmSync(work, { recursive: true, force: true });
});

const eventsOf = async (agent) =>
  (await admin.get(`/api/admin/pods/${seed.podId}/queue`)).agents.find((a) => a.agentName === agent)
    ?.events ?? [];
const helperEvents = () => eventsOf("helper");
/** Echo and helper have acked (or failed) every event: no further post can come (events are written with it). */
const settled = async () => {
  for (const agent of ["echo", "helper"])
    if ((await eventsOf(agent)).some((e) => e.state !== "acked" && e.state !== "failed")) return false;
  return true;
};
const repliesTo = async (id) =>
  (await admin.get(`/api/pods/${seed.podId}/messages?limit=100`)).messages.filter(
    (m) => m.replyToMessageId === id,
  );

describe("examples/python-sdk/echo.py in the demo pod", () => {
  it("answers a human's @mention with the echo threaded under it, and acks it posted once", async () => {
    const asked = await admin.post(`/api/pods/${seed.podId}/messages`, {
      content: "@helper hello from Python",
    });
    const reply = await eventually(async () => {
      const { messages } = await admin.get(`/api/pods/${seed.podId}/messages?limit=50`);
      return messages.find((m) => m.content === "echo: hello from Python");
    }, "the echo of the mention");
    expect(reply.author).toMatchObject({ kind: "agent", name: "helper" });
    expect(reply.replyToMessageId).toBe(asked.id);
    const acked = await eventually(
      async () => (await helperEvents()).find((e) => e.type === "mention.received" && e.state === "acked"),
      "the mention acked",
    );
    expect(acked.attempts).toBe(1);
    await eventually(() => driver.output().includes(`mention.received ${acked.id}`), "the driver's log line");
    expect(driver.output()).toContain(`mention.received ${acked.id} attempt 1: posted`);
  });

  it("beside the demo's echo: no reply to a message that mentions no one, one reply from helper to @helper", async () => {
    const plain = await admin.post(`/api/pods/${seed.podId}/messages`, { content: "good morning, everyone" });
    const asked = await admin.post(`/api/pods/${seed.podId}/messages`, { content: "@helper hi" });
    await eventually(async () => (await repliesTo(asked.id)).length > 0, "helper's reply");
    await eventually(settled, "echo's and helper's queues settled");
    expect(await repliesTo(plain.id)).toEqual([]);
    const replies = await repliesTo(asked.id);
    expect(replies.map((m) => [m.author.name, m.content])).toEqual([["helper", "echo: hi"]]);
  });

  it("acks an event type it does not handle as skipped", async () => {
    const injected = await admin.post("/api/admin/events", {
      podId: seed.podId,
      agentName: "helper",
      type: "task.assigned",
      payload: { taskId: "t-1", title: "not for an echo" },
    });
    await eventually(
      async () => (await helperEvents()).find((e) => e.id === injected.id && e.state === "acked"),
      "the task acked",
    );
    await eventually(() => driver.output().includes(`task.assigned ${injected.id}`), "the driver's log line");
    expect(driver.output()).toContain(`task.assigned ${injected.id} attempt 1: skipped`);
  });

  it("stops on SIGTERM with its summary", async () => {
    await driver.stop();
    expect(driver.child.exitCode).toBe(0);
    expect(driver.output()).toMatch(/stopped after 2 events \(\d+ skipped\)/);
  });
});
