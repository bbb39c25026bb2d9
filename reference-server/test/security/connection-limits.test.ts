/**
 * Connections per client address and the server timeouts, over real sockets to an in-process kernel
 * (issue 30, finding 4: one client holding ~20,000 silent sockets made every new connection fail, and idle
 * sockets were closed only after ~79 s). A client over `limits.maxConnectionsPerClient` gets one complete
 * `429 too_many_connections` and is closed without its request being handled, and is admitted again as
 * its connections close; another address is not affected; silent sockets close after the headers
 * timeout, idle keep-alive ones after the keep-alive timeout; a long-poll outlives both and its connection
 * carries the next request. (connection-exhaustion.test.ts measures /healthz against a kernel process.)
 */
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { KernelLimits } from "../../src/config.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";
import { openSocket, timeHealthz } from "./sockets.js";

const HOG = "127.0.0.1";
const OTHER = "127.0.0.2";

let w: World;
let port = 0;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await w?.app.close();
});

async function serve(limits: Partial<KernelLimits>) {
  w = await makeWorld({ config: { limits } });
  await w.app.listen({ host: "127.0.0.1", port: 0 });
  const address = w.app.server.address();
  port = typeof address === "object" && address ? address.port : 0;
}

const open = (localAddress: string) => openSocket(port, localAddress, sockets);

const serverConnections = () =>
  new Promise<number>((resolve, reject) =>
    w.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );

/** Opens `n` silent sockets from `localAddress` and waits until the server holds them (and no others). */
async function hog(n: number, localAddress = HOG) {
  await eventually(serverConnections, (c) => c === 0);
  const held = await Promise.all(Array.from({ length: n }, () => open(localAddress)));
  await eventually(serverConnections, (c) => c === n);
  return held;
}

const parseRaw = (raw: string) => {
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, end);
  return { status: head.split("\r\n")[0], head: head.toLowerCase(), body: JSON.parse(raw.slice(end + 4)) };
};

describe("connections per client address", () => {
  it("answers the connection over maxConnectionsPerClient with one complete 429 too_many_connections, closes it, and never handles its request", async () => {
    await serve({ maxConnectionsPerClient: 50 });
    await hog(50);
    const over = await open(HOG);
    // A post on the refused connection must not be stored.
    const body = JSON.stringify({ content: "sent on a refused connection" });
    over.socket.write(
      `POST /api/agents/runtime/pods/${w.podA.id}/messages HTTP/1.1\r\nhost: x\r\n` +
        `authorization: Bearer ${w.alpha.token}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await over.closed;
    const answer = parseRaw(over.received());
    expect(answer.status).toBe("HTTP/1.1 429 Too Many Requests");
    expect(answer.head).toContain("content-type: application/json; charset=utf-8");
    expect(answer.head).toContain("retry-after: 1");
    expect(answer.head).toContain("connection: close");
    expect(answer.body).toEqual({
      code: "too_many_connections",
      message: "Too many connections from this client.",
      details: { maxConnectionsPerClient: 50 },
    });
    const messages = (await w.adminApi("GET", `/pods/${w.podA.id}/messages`)).json().messages;
    expect(messages.map((m: { content: string }) => m.content)).not.toContain("sent on a refused connection");
    // Another address is served meanwhile.
    expect((await timeHealthz(port, OTHER, 5)).statuses).toEqual({ 200: 5 });
  });

  it("admits the client again as its connections close", async () => {
    await serve({ maxConnectionsPerClient: 5 });
    const first = await hog(5);
    for (const s of first) s.socket.destroy();
    await hog(5);
    const over = await open(HOG);
    await over.closed;
    expect(over.received()).toMatch(/^HTTP\/1\.1 429 /);
  });
});

describe("server timeouts", () => {
  it("closes a connection that has not sent a whole request head within headersTimeoutMs", async () => {
    await serve({ headersTimeoutMs: 300 });
    const t0 = performance.now();
    const silent = await open(HOG);
    const partial = await open(HOG);
    partial.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n");
    const [a, b] = await Promise.all([silent.closed, partial.closed]);
    for (const closedAt of [a, b]) {
      expect(closedAt - t0).toBeGreaterThanOrEqual(250);
      expect(closedAt - t0).toBeLessThan(5000);
    }
    await eventually(serverConnections, (c) => c === 0);
  });

  it("closes a keep-alive connection idle for keepAliveTimeoutMs", async () => {
    await serve({ keepAliveTimeoutMs: 300 });
    const s = await open(HOG);
    s.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
    await eventually(
      async () => s.received(),
      (r) => r.includes("\r\n\r\n"),
    );
    const answeredAt = performance.now();
    expect(s.received()).toMatch(/^HTTP\/1\.1 200 /);
    const closedAt = await s.closed;
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(250);
  });

  it("lets a long-poll outlive both timeouts, then carries the next request on the same connection", async () => {
    await serve({ headersTimeoutMs: 200, keepAliveTimeoutMs: 300 });
    let connections = 0;
    w.app.server.on("connection", () => connections++);
    const s = await open(HOG);
    const t0 = performance.now();
    s.socket.write(
      "GET /api/agents/runtime/events?waitSeconds=2 HTTP/1.1\r\nhost: x\r\n" +
        `authorization: Bearer ${w.alpha.token}\r\n\r\n`,
    );
    await eventually(
      async () => s.received(),
      (r) => r.includes('{"events":[]}'),
      5000,
    );
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1900);
    expect(s.received()).toMatch(/^HTTP\/1\.1 200 /);
    const first = s.received().length;
    s.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
    await eventually(
      async () => s.received().slice(first),
      (r) => /^HTTP\/1\.1 200 /.test(r),
    );
    expect(connections).toBe(1);
  });
});
