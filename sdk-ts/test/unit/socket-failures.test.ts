import { eventually } from "@commonly/cap-kernel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CapClient } from "../../src/client.js";
import { runDriver } from "../../src/driver.js";
import { CapSdkError } from "../../src/errors.js";
import { send, tinyServer } from "../helpers/tiny-server.js";

const TOKEN = `cm_agent_${"0f".repeat(32)}`;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(route: Parameters<typeof tinyServer>[0]) {
  const server = await tinyServer(route);
  closers.push(server.close);
  return server;
}

describe("CapClient over real sockets", () => {
  // given the answers of a flaky ingress, want the call to succeed after as many requests.
  const flaky: Array<[string, number, Record<string, string>]> = [
    ["429 with Retry-After: 0", 429, { "retry-after": "0" }],
    ["502 from a proxy", 502, {}],
    ["503 with Retry-After as an HTTP date in the past", 503, { "retry-after": new Date(0).toUTCString() }],
    ["504 from a gateway", 504, {}],
  ];
  for (const [name, status, headers] of flaky) {
    it(`retries an idempotent call through ${name}`, async () => {
      let n = 0;
      const server = await serve((_req, res) =>
        n++ === 0
          ? send(res, status, { code: "unavailable", message: "x" }, headers)
          : send(res, 200, { ok: true }),
      );
      const client = new CapClient({ baseUrl: server.url, token: TOKEN, retry: { baseDelayMs: 1 } });
      expect(await client.ack("e")).toEqual({ ok: true });
      expect(server.seen).toHaveLength(2);
    });
  }

  it("retries a dropped connection and reports network when it keeps dropping", async () => {
    const server = await serve((req) => req.socket.destroy());
    const client = new CapClient({ baseUrl: server.url, token: TOKEN, retry: { baseDelayMs: 1 } });
    const error = await client.getMemory().catch((e) => e);
    expect(error).toBeInstanceOf(CapSdkError);
    expect(error.code).toBe("network");
    expect(server.seen).toHaveLength(3);
  });

  it("retries a poll whose connection dropped with the same pollId, and the next poll gets a new one", async () => {
    let n = 0;
    const server = await serve((req, res) =>
      n++ === 0 ? req.socket.destroy() : send(res, 200, { events: [] }),
    );
    const client = new CapClient({ baseUrl: server.url, token: TOKEN, retry: { baseDelayMs: 1 } });
    await client.poll({ limit: 5 });
    await client.poll({ limit: 5 });
    const ids = server.seen.map((s) => new URL(s.url, "http://x").searchParams.get("pollId"));
    expect(ids).toHaveLength(3);
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it("runDriver retries a poll cut off mid-answer with the same pollId", async () => {
    let n = 0;
    const server = await serve((req, res) => {
      const url = new URL(req.url!, "http://x");
      if (url.pathname.endsWith("/info")) return send(res, 404, { code: "route_not_found", message: "x" });
      if (n++ === 0) {
        // The kernel claimed and started answering; the connection dies before the answer is whole.
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
        res.write('{"events": [');
        return setImmediate(() => res.socket?.destroy());
      }
      send(res, 200, { events: [] });
    });
    const stop = new AbortController();
    const done = runDriver({
      client: new CapClient({ baseUrl: server.url, token: TOKEN }),
      signal: stop.signal,
      pollIntervalMs: 5,
      waitSeconds: 0,
      handle: () => {},
    });
    const polls = () => server.seen.filter((s) => s.url.includes("/events?"));
    await eventually(() => polls().length >= 3, "three polls");
    stop.abort();
    await done;
    const ids = polls().map((s) => new URL(s.url, "http://x").searchParams.get("pollId"));
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[1]);
  });

  it("reports network for a response cut off mid-body", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"events": [');
      setImmediate(() => res.socket?.destroy());
    });
    const client = new CapClient({ baseUrl: server.url, token: TOKEN, retry: false });
    const error = await client.poll().catch((e) => e);
    expect(error.code).toBe("network");
  });

  it("reports network when nothing listens", async () => {
    const server = await serve(() => {});
    await server.close();
    closers.pop();
    const client = new CapClient({ baseUrl: server.url, token: TOKEN, retry: false });
    expect((await client.poll().catch((e) => e)).code).toBe("network");
  });

  it("times out a kernel that accepts the request and never answers", async () => {
    const server = await serve(() => {});
    const client = new CapClient({ baseUrl: server.url, token: TOKEN, retry: false, timeoutMs: 100 });
    expect((await client.info().catch((e) => e)).code).toBe("timeout");
  });

  it("sends User-Agent cap-sdk/<version> on the wire", async () => {
    const server = await serve((_req, res) => send(res, 200, { events: [] }));
    await new CapClient({ baseUrl: server.url, token: TOKEN }).poll();
    expect(server.seen[0]!.headers["user-agent"]).toMatch(/^cap-sdk\/\d+\.\d+\.\d+(-[0-9a-z.]+)?$/); // semver, prereleases included
  });
});

describe("runDriver against a production-shaped kernel", () => {
  it("handles _id events, ignored waitSeconds, 200 posts and {success} acks", async () => {
    const queue = [
      { _id: "65f0a1", type: "chat.mention", podId: "65e0", payload: { content: "@bot hi" }, attempts: 1 },
      { _id: "65f0a2", type: "curate", podId: "65e0", payload: {}, attempts: 1 },
    ];
    const server = await serve((req, res, body) => {
      const url = new URL(req.url!, "http://x");
      if (req.headers.authorization !== `Bearer ${TOKEN}`)
        return send(res, 401, { message: "Invalid agent token" });
      if (url.pathname.endsWith("/info")) return send(res, 404, { message: "Not found" });
      if (url.pathname.endsWith("/events")) return send(res, 200, { events: queue.splice(0) });
      if (url.pathname.endsWith("/ack")) return send(res, 200, { success: true });
      if (url.pathname.endsWith("/messages")) {
        const { content } = JSON.parse(body);
        return send(res, 200, { success: true, message: { _id: "m1", id: "m1", content, createdAt: "t" } });
      }
      send(res, 404, { error: "no route" });
    });
    const client = new CapClient({ baseUrl: server.url, token: TOKEN });
    const stop = new AbortController();
    const modes: string[] = [];
    const acks: Array<[string, string]> = [];
    const done = runDriver({
      client,
      signal: stop.signal,
      pollIntervalMs: 20,
      handle: { "chat.mention": async (e, ctx) => void (await ctx.reply(`echo ${e.payload.content}`)) },
      onPollMode: (m) => modes.push(m.mode),
      onAck: (a) => acks.push([a.event.id, a.result.outcome]),
    });
    const intervalPolls = () =>
      server.seen.filter((s) => s.url.includes("/events?") && !s.url.includes("wait"));
    await eventually(
      () => acks.length === 2 && intervalPolls().length > 0,
      "both acked and interval polling",
    );
    stop.abort();
    await done;
    expect(acks).toEqual([
      ["65f0a1", "posted"],
      ["65f0a2", "skipped"],
    ]);
    const post = server.seen.find((s) => s.method === "POST" && s.url.endsWith("/messages"))!;
    expect(JSON.parse(post.body)).toEqual({ content: "echo @bot hi" });
    expect(modes).toEqual(["long-poll", "interval"]);
    // Two empty answers that did not wait, then polls without waitSeconds.
    const polls = server.seen
      .filter((s) => s.url.includes("/events?"))
      .map((s) => s.url.includes("waitSeconds"));
    expect(polls.slice(0, 3)).toEqual([true, true, true]);
    expect(polls.slice(3).every((w) => !w)).toBe(true);
  });

  it("stops after three production 401s", async () => {
    const server = await serve((_req, res) => send(res, 401, { message: "Invalid agent token" }));
    const client = new CapClient({ baseUrl: server.url, token: TOKEN });
    const error = await runDriver({ client, handle: () => {}, pollIntervalMs: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(CapSdkError);
    expect(error.code).toBe("auth_stopped");
    expect(error.cause.message).toMatch(/Invalid agent token/);
  });
});
