/**
 * `commonly` end to end: the real bin as a child process, the real reference kernel over a real
 * socket, the fake CLIs on PATH. One kernel for the file (30 s leases); every test has its own
 * COMMONLY_HOME and agent name.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";

let kernel: TestKernel;
let c: Commonly;
beforeAll(async () => {
  kernel = await startKernel();
});
afterAll(() => kernel?.stop());
afterEach(async () => {
  await c?.dispose();
});

async function ready(name: string, extra: string[] = [], env: Record<string, string> = {}) {
  const run = c.start(["agent", "run", name, ...extra], env);
  await run.waitFor(/polling for events/);
  return run;
}

describe("commonly agent attach + run against the reference kernel", () => {
  it("attaches the stub, answers a human's message in the pod, and stops cleanly on ctrl+c", async () => {
    c = new Commonly();
    await c.login(kernel);
    const attached = await c.attach(kernel, "stub", "s1");
    expect(attached.stdout).toContain("✓ stub detected at (built in) (version 1)");
    expect(attached.stdout).toContain(`✓ Agent 's1' registered in pod ${kernel.podId}`);
    expect(attached.stdout).toContain("✓ Runtime token saved to");
    expect(attached.stdout).toContain("Run with: commonly agent run s1");
    expect(statSync(join(c.home, "tokens", "s1.json")).mode & 0o777).toBe(0o600);

    const run = await ready("s1");
    const asked = await kernel.say("hello stub, are you there?");
    const reply = await kernel.replyTo(asked, "s1");
    expect(reply.content).toBe("(stub) received: lily (human): hello stub, are you there?");
    await run.waitFor(/→ posted \(\d+ bytes\)/);
    expect(run.stdout).toContain('[s1] ← message.posted "hello stub, are you there?"');
    expect(run.stdout).toContain('[s1] spawning: stub "lily (human): hello stub, are you there?"');
    const acked = await eventually(
      async () => (await kernel.queue("s1")).find((e) => e.state === "acked"),
      "s1 acks",
    );
    expect(acked.attempts).toBe(1);
    const exit = await run.stop("SIGINT");
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/stopped: 1 handled/);
  });

  it("refuses a second run of the same agent while the first holds the pidfile", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "stub", "p1");
    const first = await ready("p1");
    const second = await c.exec(["agent", "run", "p1"]);
    expect(second.code).toBe(7);
    expect(second.stderr).toContain(`agent 'p1' is already running (pid ${first.pid})`);
    expect((await first.stop()).code).toBe(0);
  });

  it("keeps one claude session per pod across turns (--session-id first, --resume after)", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "cl1");
    const run = await ready("cl1");
    const first = await kernel.replyTo(await kernel.say("first question"), "cl1");
    const second = await kernel.replyTo(await kernel.say("second question"), "cl1");
    const calls = c.calls({ cli: "claude", event: "call" });
    expect(calls).toHaveLength(2);
    const id = calls[0]!.argv[calls[0]!.argv.indexOf("--session-id") + 1]!;
    expect(calls[1]!.argv).toEqual(expect.arrayContaining(["--resume", id]));
    expect(first.content).toBe(`claude turn 1 of ${id}: lily (human): first question`);
    expect(second.content).toBe(`claude turn 2 of ${id}: lily (human): second question`);
    const sessions = JSON.parse(readFileSync(join(c.home, "sessions", "cl1.json"), "utf8"));
    expect(sessions[kernel.podId].sessionId).toBe(id);
    expect(run.stdout).toContain('[cl1] spawning: claude -p "lily (human): second question"');
    await run.stop();
  });

  it("bridges memory: kernel long_term goes into the prompt, the CLI's memory block is synced back, not posted", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "mem1");
    const { runtimeToken } = c.tokenFile("mem1");
    const put = await kernel.cap(runtimeToken, "PUT", "/memory", {
      sections: { long_term: { content: "Lily is allergic to kiwi." } },
    });
    expect(put.status).toBe(200);
    const run = await ready("mem1", [], {
      FAKE_CLI_MODE: "memory",
      FAKE_CLI_MEMORY: "Lily is allergic to kiwi. She prefers tea.",
    });
    const reply = await kernel.replyTo(await kernel.say("what should I bring?"), "mem1");
    expect(reply.content).toBe("noted.");
    const [call] = c.calls({ cli: "claude", event: "call" });
    expect(call!.prompt).toContain(
      "=== Context (your persistent memory) ===\nLily is allergic to kiwi.\n=== Current turn ===\nlily (human): what should I bring?",
    );
    await run.waitFor(/memory: long_term synced/);
    const memory = await kernel.cap<{
      sections: { long_term?: { content: string } };
      sourceRuntime?: string;
    }>(runtimeToken, "GET", "/memory");
    expect(memory.body.sections.long_term?.content).toBe("Lily is allergic to kiwi. She prefers tea.");
    await run.stop();
  });

  it("wraps any script through the cmd adapter, with the prompt in argv and a per-pod session id", async () => {
    c = new Commonly();
    await c.login(kernel);
    const attached = await c.attach(kernel, "cmd", "bot1", ["--command", "echo-bot", "--arg", "{prompt}"]);
    expect(attached.stdout).toMatch(/✓ cmd detected at .*fixtures\/bin\/echo-bot/);
    const run = await ready("bot1");
    const reply = await kernel.replyTo(await kernel.say("ping from a human"), "bot1");
    const [call] = c.calls({ cli: "echo-bot", event: "call" });
    expect(reply.content).toBe(`echo-bot turn 1 of ${call!.session}: lily (human): ping from a human`);
    expect(call!.session).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.stdout).toContain('[bot1] spawning: echo-bot "lily (human): ping from a human"');
    await run.stop();
  });

  it("starts from COMMONLY_AGENT_TOKEN and COMMONLY_API_URL without a token file", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "stub", "env1");
    const { runtimeToken } = c.tokenFile("env1");
    const elsewhere = new Commonly();
    try {
      const run = elsewhere.start(["agent", "run", "env1"], {
        COMMONLY_AGENT_TOKEN: runtimeToken,
        COMMONLY_API_URL: kernel.url,
      });
      await run.waitFor(/polling for events/);
      const reply = await kernel.replyTo(await kernel.say("from the environment"), "env1");
      expect(reply.content).toBe("(stub) received: lily (human): from the environment");
      await run.stop();
    } finally {
      await elsewhere.dispose();
    }
  });

  it("re-acks an event it handled before (crash between record and ack) without spawning the CLI", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "dup1");
    await kernel.say("handled before the crash");
    const [pending] = await kernel.queue("dup1");
    expect(pending).toMatchObject({ state: "pending", attempts: 0 });
    mkdirSync(join(c.home, "sessions"), { recursive: true, mode: 0o700 });
    writeFileSync(join(c.home, "sessions", "dup1.events.json"), JSON.stringify({ ids: [pending!.id] }));
    const run = await ready("dup1");
    await run.waitFor(new RegExp(`↺ ${pending!.id} was handled before; re-acked without spawning`));
    await eventually(
      async () => (await kernel.queue("dup1"))[0]?.state === "acked",
      "the duplicate is acked",
    );
    expect(c.calls({ cli: "claude" })).toEqual([]);
    expect((await kernel.messages()).some((m) => m.author.name === "dup1")).toBe(false);
    await run.stop();
  });

  it("counts a post the kernel already has under the turn's key (422 idempotency_key_reused) as posted", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "idem1");
    const asked = await kernel.say("answer me once");
    const [pending] = await kernel.queue("idem1");
    // An earlier attempt posted its answer, then died before the ack.
    const earlier = await kernel.cap(
      c.tokenFile("idem1").runtimeToken,
      "POST",
      `/pods/${kernel.podId}/messages`,
      { content: "the answer of the attempt that crashed", replyToMessageId: asked },
      { "idempotency-key": `reply:${pending!.id}:0` },
    );
    expect(earlier.status).toBe(201);
    const run = await ready("idem1");
    await run.waitFor(/had been posted by an earlier attempt/);
    await eventually(async () => (await kernel.queue("idem1"))[0]?.state === "acked", "idem1 acks");
    expect(c.calls({ cli: "claude", event: "call" })).toHaveLength(1);
    const posted = (await kernel.messages()).filter((m) => m.author.name === "idem1");
    expect(posted.map((m) => m.content)).toEqual(["the answer of the attempt that crashed"]);
    await run.stop();
  });

  it("posts a long reply in several messages, and nothing for HEARTBEAT_OK on a heartbeat", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "big1");
    const run = await ready("big1", [], {
      FAKE_CLI_MODE: "big,reply",
      FAKE_CLI_BYTES: "130000",
      FAKE_CLI_REPLY: "HEARTBEAT_OK",
    });
    const asked = await kernel.say("write a lot");
    await run.waitFor(/→ posted in 3 messages \(130000 bytes\)/);
    const parts = (await kernel.messages()).filter((m) => m.replyToMessageId === asked).reverse();
    expect(parts.map((m) => m.content.length)).toEqual([60_000, 60_000, 10_000]);

    const tick = await kernel.emit("big1", "heartbeat.tick", { tickAt: new Date().toISOString() });
    await run.waitFor(/← heartbeat.tick\n.*\n\[big1\] HEARTBEAT_OK \(no work\)/);
    await eventually(
      async () => (await kernel.queue("big1")).find((e) => e.id === tick)?.state === "acked",
      "tick acked",
    );
    expect((await kernel.messages()).filter((m) => m.author.name === "big1")).toHaveLength(3);
    await run.stop();
  });

  it("shows logs without touching the kernel: the queue and the token's last use are unchanged", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "stub", "log1");
    const run = await ready("log1");
    await kernel.replyTo(await kernel.say("something to log"), "log1");
    await run.stop();
    await kernel.say("waiting while the agent is stopped");
    const queueBefore = await kernel.queue("log1");
    const tokensBefore = await kernel.tokens("log1");
    expect(queueBefore[0]).toMatchObject({ state: "pending", attempts: 0 });

    const shown = await c.exec(["agent", "logs", "log1"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\[log1\] ← message.posted "something to log"/);
    expect(shown.stdout).toMatch(/\[log1\] → posted \(\d+ bytes\)/);
    const raw = await c.exec(["agent", "logs", "log1", "--json", "-n", "1"]);
    expect(JSON.parse(raw.stdout.trim())).toMatchObject({ agent: "log1", msg: "stopped" });
    const follow = c.start(["agent", "logs", "log1", "--follow"]);
    await follow.waitFor(/stopped: 1 handled/);
    expect((await follow.stop("SIGINT")).code).toBe(0);

    expect(await kernel.queue("log1")).toEqual(queueBefore);
    expect(await kernel.tokens("log1")).toEqual(tokensBefore);
  });

  it("stops with the detach hint when its token is revoked", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "stub", "rev1");
    const run = await ready("rev1", ["--wait", "1"]);
    await kernel.revokeToken("rev1", c.tokenFile("rev1").tokenId);
    const exit = await run.exited;
    expect(exit.code).toBe(6);
    expect(exit.stderr).toContain("token_revoked");
    expect(exit.stderr).toContain("run `commonly agent detach rev1` and attach it again");
  });

  it("lists, then detaches: token revoked, agent uninstalled, local state removed, logs kept", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "stub", "det1");
    const listed = await c.exec(["agent", "list"]);
    expect(listed.stdout).toMatch(new RegExp(`det1\\s+stub\\s+${kernel.podId}\\s+${kernel.url}\\s+stopped`));
    const run = await ready("det1");
    const busy = await c.exec(["agent", "detach", "det1"]);
    expect(busy.code).toBe(7);
    await run.stop();
    const { runtimeToken } = c.tokenFile("det1");

    const detached = await c.exec(["agent", "detach", "det1"]);
    expect(detached.code).toBe(0);
    expect(detached.stdout).toContain("✓ Runtime token revoked");
    expect(detached.stdout).toContain(`✓ Agent 'det1' uninstalled from pod ${kernel.podId}`);
    expect((await kernel.cap(runtimeToken, "GET", "/memory")).status).toBe(401);
    const pod = await kernel.admin.get<{ installations: Array<{ agentName: string }> }>(
      `/api/pods/${kernel.podId}`,
    );
    expect(pod.installations.map((i) => i.agentName)).not.toContain("det1");
    expect((await c.exec(["agent", "list", "--json"])).stdout.trim()).toBe("[]");
    expect(c.log("det1").length).toBeGreaterThan(0);
    expect((await c.exec(["agent", "run", "det1"])).code).toBe(9);
  });

  it("says what to do when not logged in, the kernel is unreachable, or the CLI is missing", async () => {
    c = new Commonly();
    const notLoggedIn = await c.exec(["agent", "attach", "stub", "--pod", kernel.podId, "--name", "e1"]);
    expect(notLoggedIn.code).toBe(3);
    expect(notLoggedIn.stderr).toContain("commonly login --url");

    const unreachable = await c.exec(["login", "--url", "http://127.0.0.1:1", "--token", "cm_user_x"]);
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toContain("cannot reach the kernel at http://127.0.0.1:1");

    const badToken = await c.exec(["login", "--url", kernel.url, "--token", "cm_user_nope"]);
    expect(badToken.code).toBe(3);

    await c.login(kernel);
    const missing = await c.exec(["agent", "attach", "codex", "--pod", kernel.podId, "--name", "e1"], {
      PATH: "/nonexistent",
    });
    expect(missing.code).toBe(8);
    expect(missing.stderr).toContain("codex is not on your PATH");

    const unknown = await c.exec(["agent", "attach", "vim", "--pod", kernel.podId, "--name", "e1"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown CLI "vim"');

    const noPod = await c.exec(["agent", "attach", "stub", "--pod", "pod_nope", "--name", "e1"]);
    expect(noPod.code).toBe(5);
    expect(noPod.stderr).toContain("pod pod_nope does not exist");
  });
});
