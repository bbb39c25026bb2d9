/**
 * `cap-kernel demo`, the README quickstart's main job, as a real process: it prints the URLs and tokens,
 * an echo driver answers a human's @mention through CAP, and `--driver` runs an external driver process
 * with CAP_URL and CAP_TOKEN. `--profile production` answers an @mention through a deployed-style driver.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type ReceivedSpan, startOtlpReceiver } from "../../src/testing/index.js";
import { BIN } from "../helpers/process.js";

const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.kill("SIGTERM");
});

/** `cwd` given: the demo runs there on its own default database (no --db). */
function startDemo(extra: string[], cwd?: string, env?: Record<string, string>) {
  const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-demo-")), "demo.db")}`;
  const args = cwd ? ["demo", "--port", "0", ...extra] : ["demo", "--port", "0", "--db", db, ...extra];
  const proc = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(cwd ? { cwd, env: { ...process.env, CAP_DB: "" } } : {}),
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  running.push(proc);
  let out = "";
  let stdout = "";
  proc.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    stdout += d.toString();
  });
  proc.stderr.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise((r) => proc.once("close", r));
  const stop = () => {
    proc.kill("SIGTERM");
    return exited;
  };
  return { proc, output: () => out, stdout: () => stdout, stop };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const bannerOf = (demo: ReturnType<typeof startDemo>) =>
  until("the banner", () => (/dev console/.test(demo.output()) ? demo.output() : undefined));

describe("cap-kernel demo", () => {
  it("starts clean on its own database unless --keep, and says which it did on its first line", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "cap-demo-cwd-"));
    const first = startDemo([], cwd);
    let out = await bannerOf(first);
    expect(first.stdout().split("\n")[0]).toMatch(/^cap-kernel demo is running at http/);
    expect(first.output()).not.toContain("creating a new database"); // its own file: the first line speaks
    // A message for helper, whose driver is not running: an open event left in the database.
    const url = /running at (http:\/\/\S+)/.exec(out)![1]!;
    const human = /human token\s+(cm_user_[0-9a-f]{64})/.exec(out)![1]!;
    const podId = /pod id\s+(\S+)/.exec(out)![1]!;
    const posted = await fetch(`${url}/api/pods/${podId}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${human}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "@helper are you there?" }),
    });
    expect(posted.status).toBe(201);
    // Once echo's driver has settled its queue, only helper's events stay open (no driver runs helper).
    const queue = async () => {
      const r = await fetch(`${url}/api/admin/pods/${podId}/queue`, {
        headers: { authorization: `Bearer ${human}` },
      });
      const { agents } = (await r.json()) as { agents: { agentName: string; events: { state: string }[] }[] };
      const open = (name: string) =>
        agents.find((a) => a.agentName === name)?.events.filter((e) => !["acked", "failed"].includes(e.state))
          .length ?? 0;
      return { echo: open("echo"), helper: open("helper") };
    };
    const left = await until("echo's queue settled", async () => {
      const q = await queue();
      return q.echo === 0 ? q.helper : undefined;
    });
    expect(left).toBe(2); // the welcome (message.posted) and the question (mention.received)
    await first.stop();
    expect(existsSync(join(cwd, ".cap-kernel", "demo.db"))).toBe(true);

    const kept = startDemo(["--keep"], cwd);
    out = await bannerOf(kept);
    expect(kept.stdout().split("\n")[0]).toBe(
      "cap-kernel demo: reusing .cap-kernel/demo.db (2 open events from an earlier run, delivered to the drivers first); run without --keep to start clean",
    );
    expect(/pod id\s+(\S+)/.exec(out)![1]).toBe(podId);
    await kept.stop();

    const fresh = startDemo([], cwd);
    out = await bannerOf(fresh);
    expect(fresh.stdout().split("\n")[0]).toBe(
      "cap-kernel demo: starting clean (removed .cap-kernel/demo.db from an earlier run; pass --keep to reuse it)",
    );
    expect(fresh.stdout().split("\n")[1]).toMatch(/^cap-kernel demo is running at http/);
    expect(/pod id\s+(\S+)/.exec(out)![1]).not.toBe(podId);
    await fresh.stop();
  });

  it("prints the URL, console, docs and tokens, and its echo driver answers a human's @mention", async () => {
    const demo = startDemo([]);
    const out = await until("the banner", () =>
      /dev console/.test(demo.output()) ? demo.output() : undefined,
    );
    const url = /running at (http:\/\/\S+)/.exec(out)![1]!;
    const human = /human token\s+(cm_user_[0-9a-f]{64})/.exec(out)![1]!;
    const podId = /pod id\s+(\S+)/.exec(out)![1]!;
    expect(out).toMatch(/agent "echo"\s+cm_agent_[0-9a-f]{64}/);
    expect(out).toMatch(/agent "helper"\s+cm_agent_[0-9a-f]{64}/);
    expect(out).toContain(`${url}/console/#token=${human}`);
    expect(out).toContain(`${url}/docs/`);

    const auth = { authorization: `Bearer ${human}`, "content-type": "application/json" };
    const posted = await fetch(`${url}/api/pods/${podId}/messages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: "ping @echo" }),
    });
    expect(posted.status).toBe(201);
    const { id } = (await posted.json()) as { id: string };
    const reply = await until("the echo reply", async () => {
      const r = await fetch(`${url}/api/pods/${podId}/messages?limit=20`, { headers: auth });
      const { messages } = (await r.json()) as {
        messages: Array<{ replyToMessageId?: string; content: string; author: { name: string } }>;
      };
      return messages.find((m) => m.replyToMessageId === id);
    });
    expect(reply.author.name).toBe("echo");
    expect(reply.content).toMatch(/ping/);
  });

  it("with OTEL_EXPORTER_OTLP_ENDPOINT set, exports an @echo story (post, send, poll, reply, ack) as one trace", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const demo = startDemo([], undefined, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "50",
      });
      const out = await bannerOf(demo);
      const url = /running at (http:\/\/\S+)/.exec(out)![1]!;
      const human = /human token\s+(cm_user_[0-9a-f]{64})/.exec(out)![1]!;
      const podId = /pod id\s+(\S+)/.exec(out)![1]!;
      // As the console posts: no traceparent, so the kernel's send span is the story's root.
      const posted = await fetch(`${url}/api/pods/${podId}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${human}`, "content-type": "application/json" },
        body: JSON.stringify({ content: "trace me @echo" }),
      });
      expect(posted.status).toBe(201);
      const named = (s: ReceivedSpan[], name: string) => s.filter((x) => x.name === name);
      const POST = "POST /api/pods/:podId/messages";
      const ACK = "POST /api/agents/runtime/events/:id/ack";
      const REPLY = "POST /api/agents/runtime/pods/:podId/messages";
      // The demo's own first message is another story: this one is the trace the console-style post started.
      const storyOf = (s: ReceivedSpan[]) => {
        const root = named(s, POST)[0];
        return root ? s.filter((x) => x.traceId === root.traceId) : [];
      };
      const spans = await receiver.waitForSpans((s) => {
        const story = storyOf(s);
        return named(story, ACK).length > 0 && named(story, REPLY).length > 0;
      });
      const story = storyOf(spans);
      const root = named(story, POST)[0]!;
      expect(root.parentSpanId).toBeUndefined();
      const send = named(story, "send")[0]!;
      const ancestors = (x: ReceivedSpan): string[] => {
        const parent = story.find((p) => p.spanId === x.parentSpanId);
        return parent ? [parent.spanId, ...ancestors(parent)] : [];
      };
      expect(ancestors(send)).toContain(root.spanId);
      // The echo driver forwarded the event's context: its reply and its ack are children of the send span.
      expect(named(story, REPLY)[0]!.parentSpanId).toBe(send.spanId);
      expect(named(story, ACK)[0]!.parentSpanId).toBe(send.spanId);
      // The poll that claimed the event is its own trace, linked to the send span.
      const receive = spans.find(
        (x) => x.name === "receive" && x.links.some((l) => l.spanId === send.spanId),
      );
      expect(receive?.links.find((l) => l.spanId === send.spanId)?.traceId).toBe(send.traceId);
      await demo.stop();
    } finally {
      await receiver.close();
    }
  });

  it("runs the --driver command for agent echo with CAP_URL and CAP_TOKEN", async () => {
    const script = "console.log('driver sees', process.env.CAP_URL, process.env.CAP_TOKEN.slice(0, 9))";
    const demo = startDemo(["--driver", `"${process.execPath}" -e "${script}"`]);
    const out = await until("the driver's line", () =>
      /\[driver\] driver sees/.test(demo.output()) ? demo.output() : undefined,
    );
    const url = /running at (http:\/\/\S+)/.exec(out)![1]!;
    expect(out).toContain(`[driver] driver sees ${url} cm_agent_`);
    expect(out).toMatch(/answered by the driver process/);
  });

  it("stops its --driver process, and what that command started, when it is stopped", async () => {
    const script = "console.log('driver pid', process.pid); setInterval(() => {}, 1000)";
    const demo = startDemo(["--driver", `"${process.execPath}" -e "${script}"`]);
    const out = await until("the driver's pid", () =>
      /\[driver\] driver pid (\d+)/.test(demo.output()) ? demo.output() : undefined,
    );
    const pid = Number(/\[driver\] driver pid (\d+)/.exec(out)![1]);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    await demo.stop();
    await until("the driver process gone", () => (alive() ? undefined : true), 10_000);
  });

  it("with --profile production, answers an @mention through the deployed Python SDK as its --driver", async () => {
    const sdk = join(
      dirname(fileURLToPath(import.meta.url)),
      "..",
      "profiles",
      "deployed",
      "commonly_sdk_driver.py",
    );
    const demo = startDemo(["--profile", "production", "--driver", `python3 -u "${sdk}"`]);
    const out = await until("the banner", () =>
      /dev console/.test(demo.output()) ? demo.output() : undefined,
    );
    expect(out).toMatch(/profile production/);
    const url = /running at (http:\/\/\S+)/.exec(out)![1]!;
    const human = /human token\s+(cm_user_[0-9a-f]{64})/.exec(out)![1]!;
    const podId = /pod id\s+(\S+)/.exec(out)![1]!;
    const auth = { authorization: `Bearer ${human}`, "content-type": "application/json" };
    await fetch(`${url}/api/pods/${podId}/messages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: "ping @echo, deployed" }),
    });
    const reply = await until("the deployed driver's reply", async () => {
      const r = await fetch(`${url}/api/pods/${podId}/messages?limit=20`, { headers: auth });
      const { messages } = (await r.json()) as {
        messages: Array<{ content: string; author: { name: string } }>;
      };
      return messages.find((m) => m.content === "(py) received: ping @echo, deployed");
    });
    expect(reply.author.name).toBe("echo");
    expect(demo.output()).toContain('"type": "chat.mention"');
  });

  it("with --profile production, its built-in echo driver still answers an @mention", async () => {
    const demo = startDemo(["--profile", "production"]);
    const out = await until("the banner", () =>
      /dev console/.test(demo.output()) ? demo.output() : undefined,
    );
    const url = /running at (http:\/\/\S+)/.exec(out)![1]!;
    const human = /human token\s+(cm_user_[0-9a-f]{64})/.exec(out)![1]!;
    const podId = /pod id\s+(\S+)/.exec(out)![1]!;
    const auth = { authorization: `Bearer ${human}`, "content-type": "application/json" };
    const info = await fetch(`${url}/readyz`).then((r) => r.json());
    expect(info).toMatchObject({ ok: true, profile: "production" });
    const reply = await until("the echo of the demo's welcome", async () => {
      const r = await fetch(`${url}/api/pods/${podId}/messages?limit=20`, { headers: auth });
      const { messages } = (await r.json()) as {
        messages: Array<{ content: string; author: { name: string } }>;
      };
      return messages.find((m) => m.author.name === "echo" && /welcome/.test(m.content));
    });
    expect(reply.content).toBe("echo: welcome to the demo pod!");
  });
});
