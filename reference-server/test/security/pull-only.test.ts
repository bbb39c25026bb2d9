/**
 * Pull-only (ADR-004 invariant 2): whatever drivers and operators send — payloads, metadata, manifests and
 * memory full of URLs, webhook and callback fields pointing at a live canary listener — the kernel opens no
 * outbound connection. Checked two ways: a spy on net.Socket.prototype.connect (every TCP/IPC connection in
 * this process goes through it) and the canary listener's own connection count.
 */
import { createServer, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";

let canaryHits = 0;
const sockets = new Set<Socket>();
const canary = createServer((s) => {
  canaryHits++;
  sockets.add(s);
  s.end("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
});

/** Counts every Socket#connect in this process while installed. */
function spyOnConnect() {
  const original = Socket.prototype.connect;
  const spy = {
    calls: 0,
    restore: () => {
      Socket.prototype.connect = original;
    },
  };
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    spy.calls++;
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof original;
  return spy;
}
let url = "";
beforeAll(async () => {
  await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
  const addr = canary.address();
  url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => canary.close(r));
});

describe("pull-only", () => {
  it("opens no outbound connection whatever the payloads contain", async () => {
    const connect = spyOnConnect();
    let w: World | null = null;
    try {
      w = await makeWorld({ config: { leaseSeconds: 0.2, maxAttempts: 2 } });
      const links = {
        webhookUrl: `${url}/hook`,
        callbackUrl: `${url}/cb`,
        url,
        href: `${url}/x`,
        avatar: `${url}/a.png`,
      };
      await w.adminApi("POST", "/registry/publish", {
        name: "hooky",
        ...links,
        installWebhook: `${url}/install`,
        endpoint: url,
      });
      await w.adminApi("POST", "/registry/install", { agentName: "hooky", podId: w.podA.id });
      const tok = (
        await w.adminApi("POST", `/registry/pods/${w.podA.id}/agents/hooky/runtime-tokens`, {})
      ).json().token;
      await w.adminApi("POST", "/admin/events", {
        agentName: "hooky",
        podId: w.podA.id,
        type: "webhook.deliver",
        payload: links,
      });
      await w.adminApi("POST", `/pods/${w.podA.id}/messages`, {
        content: `see ${url} and ![img](${url}/i.png) @hooky`,
        metadata: links,
      });
      await w.cap(tok, "POST", `/pods/${w.podA.id}/messages`, {
        content: `<img src="${url}/p.png"> ${url}`,
        metadata: links,
      });
      await w.cap(tok, "PUT", "/memory", {
        content: url,
        sections: { soul: { content: `${url}/soul` } },
        sourceRuntime: url,
      });
      await w.cap(tok, "POST", "/memory/sync", {
        mode: "full",
        sections: { shared: { content: url } },
        sourceRuntime: url,
      });
      await w.cap(tok, "POST", "/decisions", {
        podId: w.podA.id,
        decisionClass: "strategy",
        title: url,
        question: url,
        options: [url, `${url}/2`],
      });
      const events = (await w.cap(tok, "GET", "/events?limit=50")).json().events;
      await w.cap(tok, "POST", `/events/${events[0].id}/ack`, {
        result: { outcome: "posted", details: links },
      });
      await w.cap(tok, "GET", "/events?waitSeconds=1");
      await w.req({ url: "/metrics" });
      expect(events.length).toBeGreaterThan(0);
      expect(connect.calls).toBe(0);
      expect(canaryHits).toBe(0);
    } finally {
      await w?.app.close();
      connect.restore();
    }
  });

  it("would notice an outbound connection (the spy and the canary work)", async () => {
    const connect = spyOnConnect();
    try {
      expect((await fetch(url, { signal: AbortSignal.timeout(5000) })).status).toBe(204);
      expect(connect.calls).toBeGreaterThan(0);
      expect(canaryHits).toBe(1);
    } finally {
      connect.restore();
      canaryHits = 0;
    }
  });
});
