/**
 * Deployed drivers, unchanged, against `cap-kernel serve --profile production` over real sockets: the
 * stand-ins in ./deployed reproduce the production CLI (`commonly agent run`, stub adapter) and the
 * production Python SDK exactly as the field notes describe their wire behaviour. Each gets an @mention
 * answered and a heartbeat handled; against the default profile the CLI acks the mention without a turn,
 * which is why the profile exists.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  eventually,
  type Spawned,
  spawnProcess,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const CLI_RUN = join(here, "deployed", "cli-run.mjs");
const PY_SDK = join(here, "deployed", "commonly_sdk_driver.py");

interface Step {
  step: string;
  id?: string;
  type?: string;
  [k: string]: unknown;
}
interface Message {
  id: string;
  content: string;
  author: { name: string; kind: string };
  replyToMessageId?: string;
  metadata?: Record<string, unknown>;
}

const steps = (p: Spawned): Step[] =>
  p
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Step);

const stepOf = (p: Spawned, step: string, id: string) =>
  eventually(() => steps(p).find((s) => s.step === step && s.id === id), `${step} of ${id}`);

async function eventFor(k: TestKernel, agent: string, pick: (e: { id: string; type: string }) => boolean) {
  return eventually(async () => {
    const q = await k.admin.get(`/api/admin/pods/${k.podId}/queue`);
    return q.agents.find((a: { agentName: string }) => a.agentName === agent)?.events.find(pick) as
      | { id: string; type: string; state: string; attempts: number }
      | undefined;
  }, `a queued event for ${agent}`);
}

const ackedEvent = (k: TestKernel, agent: string, id: string) =>
  eventually(async () => {
    const e = await eventFor(k, agent, (x) => x.id === id);
    return e.state === "acked" ? e : undefined;
  }, `event ${id} acked`);

async function messages(k: TestKernel): Promise<Message[]> {
  return (await k.admin.get(`/api/pods/${k.podId}/messages?limit=100`)).messages;
}

async function uninstall(k: TestKernel, agent: string) {
  const res = await fetch(`${k.url}/api/registry/pods/${k.podId}/agents/${agent}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${k.human.token}` },
  });
  expect(res.status).toBe(200);
}

const exitOf = (p: Spawned) =>
  new Promise<number | null>((resolve) => {
    if (p.child.exitCode !== null) resolve(p.child.exitCode);
    else p.child.once("exit", (code) => resolve(code));
  });

function cliDriver(k: TestKernel, agent: string) {
  return spawnProcess(process.execPath, [CLI_RUN], {
    env: {
      ...process.env,
      COMMONLY_API_URL: k.url,
      COMMONLY_AGENT_TOKEN: k.agents[agent]!.token,
      AGENT_NAME: agent,
      INSTANCE_ID: "default",
    },
    name: "deployed CLI",
  });
}

const started: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
});

describe("the deployed CLI (stub adapter) against --profile production", () => {
  let k: TestKernel;
  let cli: Spawned;
  beforeAll(async () => {
    k = await startKernel({ agents: ["cli-agent"], profile: "production" });
    started.push(k);
    cli = cliDriver(k, "cli-agent");
    started.push(cli);
  });

  it("answers an @mention delivered as chat.mention, claiming, reading self/isBot and parsing the production answers", async () => {
    const asked = await k.admin.post(`/api/pods/${k.podId}/messages`, {
      content: "@cli-agent what is 17 * 23?",
    });
    const ev = await eventFor(k, "cli-agent", (e) => e.type === "mention.received");
    const seen = await stepOf(cli, "event", ev.id);
    expect(seen.type).toBe("chat.mention");
    expect((await stepOf(cli, "claim", ev.id)).status).toBe(404);
    const posted = await stepOf(cli, "posted", ev.id);
    expect(posted.content).toBe("(stub) received: @cli-agent what is 17 * 23?");
    expect(await stepOf(cli, "after", ev.id)).toMatchObject({ found: true, self: true, isBot: true });
    expect(await stepOf(cli, "acked", ev.id)).toMatchObject({
      outcome: "posted",
      status: 200,
      answer: { success: true },
    });
    const reply = (await messages(k)).find((m) => m.id === posted.messageId);
    expect(reply).toMatchObject({ content: posted.content, author: { name: "cli-agent", kind: "agent" } });
    expect((await ackedEvent(k, "cli-agent", ev.id)).attempts).toBe(1);
    expect(asked.id).toBeTypeOf("string");
    expect(steps(cli).filter((s) => s.step.endsWith("-unexpected"))).toEqual([]);
  });

  it("answers a mention inside a thread, delivered as thread.mention", async () => {
    const root = await k.admin.post(`/api/pods/${k.podId}/messages`, { content: "a thread root" });
    await k.admin.post(`/api/pods/${k.podId}/messages`, {
      content: "@cli-agent and in the thread?",
      replyToMessageId: root.id,
    });
    const ev = await eventFor(
      k,
      "cli-agent",
      (e) =>
        e.type === "mention.received" && steps(cli).every((s) => s.id !== e.id || s.type !== "chat.mention"),
    );
    expect((await stepOf(cli, "event", ev.id)).type).toBe("thread.mention");
    expect((await stepOf(cli, "posted", ev.id)).content).toBe(
      "(stub) received: @cli-agent and in the thread?",
    );
    await ackedEvent(k, "cli-agent", ev.id);
  });

  it("handles a heartbeat, delivered as heartbeat, without posting", async () => {
    const injected = await k.admin.post("/api/admin/events", {
      podId: k.podId,
      agentName: "cli-agent",
      type: "heartbeat.tick",
      payload: { tickAt: new Date().toISOString() },
    });
    expect((await stepOf(cli, "event", injected.id)).type).toBe("heartbeat");
    expect(await stepOf(cli, "not-posted", injected.id)).toMatchObject({ reply: "HEARTBEAT_OK" });
    expect(await stepOf(cli, "acked", injected.id)).toMatchObject({ outcome: "no_action", status: 200 });
    await ackedEvent(k, "cli-agent", injected.id);
    expect(steps(cli).some((s) => s.step === "posted" && s.id === injected.id)).toBe(false);
  });

  it("stops after three refused polls once its agent is uninstalled (its token revoked)", async () => {
    await uninstall(k, "cli-agent");
    expect(await exitOf(cli)).toBe(2);
    expect(
      steps(cli)
        .filter((s) => s.step === "poll-refused")
        .map((s) => s.status),
    ).toEqual([401, 401, 401]);
  });
});

describe("the deployed Python SDK against --profile production", () => {
  let k: TestKernel;
  let py: Spawned;
  beforeAll(async () => {
    k = await startKernel({ agents: ["py-agent"], profile: "production" });
    started.push(k);
    py = spawnProcess("python3", ["-u", PY_SDK], {
      env: { ...process.env, COMMONLY_API_URL: k.url, COMMONLY_AGENT_TOKEN: k.agents["py-agent"]!.token },
      name: "deployed Python SDK",
    });
    started.push(py);
  });

  it("answers an @mention: _id, podId and payload.content read, snake-case post accepted, {result:{outcome, content}} ack taken", async () => {
    await k.admin.post(`/api/pods/${k.podId}/messages`, { content: "hello @py-agent" });
    const ev = await eventFor(k, "py-agent", (e) => e.type === "mention.received");
    expect((await stepOf(py, "event", ev.id)).type).toBe("chat.mention");
    const posted = await stepOf(py, "posted", ev.id);
    expect(posted).toMatchObject({
      status: 200,
      answer: { success: true, message: { _id: expect.any(String) } },
    });
    const messageId = (posted.answer as { message: { _id: string } }).message._id;
    const reply = (await messages(k)).find((m) => m.id === messageId)!;
    expect(reply).toMatchObject({
      content: "(py) received: hello @py-agent",
      author: { name: "py-agent", kind: "agent" },
      metadata: { sdk: "commonly-sdk/0.1" },
    });
    // reply_to_message_id is snake case: accepted and ignored, as the production kernel does.
    expect(reply.replyToMessageId).toBeUndefined();
    expect(await stepOf(py, "acked", ev.id)).toMatchObject({ status: 200, answer: { success: true } });
    expect((await ackedEvent(k, "py-agent", ev.id)).attempts).toBe(1);
  });

  it("handles a heartbeat, delivered as heartbeat", async () => {
    const injected = await k.admin.post("/api/admin/events", {
      podId: k.podId,
      agentName: "py-agent",
      type: "heartbeat.tick",
      payload: { tickAt: new Date().toISOString() },
    });
    expect((await stepOf(py, "event", injected.id)).type).toBe("heartbeat");
    await stepOf(py, "heartbeat", injected.id);
    expect(await stepOf(py, "acked", injected.id)).toMatchObject({ outcome: "no_action", status: 200 });
    await ackedEvent(k, "py-agent", injected.id);
  });

  it("exits after three refused polls once its agent is uninstalled (its token revoked)", async () => {
    await uninstall(k, "py-agent");
    expect(await exitOf(py)).toBe(2);
    expect(
      steps(py)
        .filter((s) => s.step === "poll-refused")
        .map((s) => s.status),
    ).toEqual([401, 401, 401]);
  });
});

describe("the deployed CLI against the default profile", () => {
  it("acks an @mention without a turn, because it knows only the production names", async () => {
    const k = await startKernel({ agents: ["cli-agent"] });
    started.push(k);
    const cli = cliDriver(k, "cli-agent");
    started.push(cli);
    await k.admin.post(`/api/pods/${k.podId}/messages`, { content: "@cli-agent are you there?" });
    const ev = await eventFor(k, "cli-agent", (e) => e.type === "mention.received");
    expect((await stepOf(cli, "event", ev.id)).type).toBe("mention.received");
    // The CAP ack answer {ok: true} is not the {success: true} it parses.
    expect(await stepOf(cli, "ack-unexpected", ev.id)).toMatchObject({ outcome: "skipped", status: 200 });
    expect(steps(cli).some((s) => s.step === "posted")).toBe(false);
    expect((await messages(k)).some((m) => m.author.name === "cli-agent")).toBe(false);
  });
});
