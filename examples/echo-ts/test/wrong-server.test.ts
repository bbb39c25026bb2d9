/**
 * The example as a user runs it (`node dist/echo.js`, default options) against a server shaped like the
 * Prism mock this repository used to ship: stateless, so every poll hands back the same example event,
 * and every batch ack answers the spec's example (two results, for ids nobody sent). Against Prism the
 * example once made 689 requests in 6 s; now the SDK backs off. Counted on the server side: at most 5
 * requests in any second after the first, the driver still running after 7 s, and a clean SIGTERM.
 * (The full table of wrong servers is sdk-ts/test/integration/wrong-servers.test.ts.)
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnProcess } from "@commonly/cap-kernel/testing";
import { expect, it } from "vitest";

const example = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "echo.js");

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const event = {
  id: "evt_01JH7Z9QK3W5Y2",
  type: "mention.received",
  podId: "pod_3c1d2e",
  payload: {
    messageId: "msg_9b2f41",
    podId: "pod_3c1d2e",
    content: "@echo-bot what is 17 * 23?",
    author: { id: "usr_7f3a9c", kind: "human", name: "lily" },
    mention: "echo-bot",
  },
  attempts: 1,
  createdAt: "2026-11-29T18:00:00Z",
};

it("backs off against a stateless mock whose batch ack answers for other ids: at most 5 requests a second", async () => {
  const times: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      times.push(Date.now());
      const path = new URL(req.url!, "http://x").pathname.replace("/api/agents/runtime", "");
      if (path === "/info")
        return send(res, 200, {
          protocol: "cap",
          version: "1",
          leaseSeconds: 30,
          maxAttempts: 5,
          maxLimit: 50,
          maxWaitSeconds: 25,
          features: ["long-poll", "batch-ack"],
        });
      if (path === "/events") return send(res, 200, { events: [event] });
      if (path === "/events/ack")
        return send(res, 200, {
          results: [
            { id: "evt_01JH7Z9QK3W5Y2", ok: true },
            { id: "evt_01JH7Z9QK3W5Y3", ok: false, code: "event_not_found" },
          ],
        });
      if (path.endsWith("/messages")) return send(res, 201, { id: "msg_1", createdAt: event.createdAt });
      send(res, 404, { code: "route_not_found", message: path });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const driver = spawnProcess(process.execPath, [example], {
    env: { ...process.env, CAP_URL: url, CAP_TOKEN: `cm_agent_${"e".repeat(64)}` },
    name: "examples/echo-ts",
  });
  try {
    await new Promise((r) => setTimeout(r, 7000)); // the observation window: the bound is about wall time
    const end = Date.now();
    const counts = Array.from({ length: Math.ceil((end - times[0]!) / 1000) }, () => 0);
    for (const t of times) if (t < end) counts[Math.floor((t - times[0]!) / 1000)]! += 1;
    const report = `requests per second ${JSON.stringify(counts)}; output: ${driver.output().slice(-400)}`;
    expect(Math.max(...counts.slice(1)), report).toBeLessThanOrEqual(5);
    expect(driver.child.exitCode, report).toBeNull();
  } finally {
    await driver.stop();
    server.closeAllConnections();
    server.close();
  }
  expect(driver.output()).toContain("stopped after");
}, 30_000);
