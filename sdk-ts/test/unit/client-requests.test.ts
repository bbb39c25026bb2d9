/**
 * CapClient: what goes on the wire (method, path, query, body, headers, idempotency keys).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CapClient } from "../../src/client.js";
import { json, scriptedClient, TOKEN } from "../helpers/fake-fetch.js";

describe("CapClient requests", () => {
  it("sends the bearer token, a cap-sdk User-Agent and the query of a poll", async () => {
    const { c, requests } = scriptedClient([json(200, { events: [] })]);
    await c.poll({ limit: 5, waitSeconds: 3, pollId: "poll_1" });
    const r = requests[0]!;
    expect(r.method).toBe("GET");
    expect(r.url).toBe("http://kernel.test/api/agents/runtime/events?limit=5&waitSeconds=3&pollId=poll_1");
    expect(r.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    const version = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).version;
    expect(r.headers.get("user-agent")).toBe(`cap-sdk/${version}`);
  });

  it("tolerates a base URL that already ends in the CAP base path", async () => {
    const { c, requests } = scriptedClient([json(200, { events: [] })], {
      baseUrl: "http://kernel.test/api/agents/runtime/",
    });
    await c.poll({ pollId: "p" });
    expect(requests[0]!.url).toBe("http://kernel.test/api/agents/runtime/events?pollId=p");
  });

  it("gives every poll a fresh pollId of the CAP pattern, and each retry of it the same one", async () => {
    const { c, requests } = scriptedClient([
      json(503, { code: "store_unavailable", message: "x" }),
      json(200, { events: [] }),
      json(200, { events: [] }),
    ]);
    await c.poll({ limit: 1 });
    await c.poll({ limit: 1 });
    const ids = requests.map((r) => new URL(r.url).searchParams.get("pollId"));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it("appends a caller's product to the User-Agent", async () => {
    const { c, requests } = scriptedClient([json(200, { events: [] })], { userAgent: "my-driver/2" });
    await c.poll();
    expect(requests[0]!.headers.get("user-agent")).toMatch(/^cap-sdk\/\S+ my-driver\/2$/);
  });

  // given a call, want the method, path and JSON body sent.
  const calls: Array<[string, (c: CapClient) => Promise<unknown>, Response, string, string, unknown]> = [
    ["ack without a result", (c) => c.ack("e 1"), json(200, { ok: true }), "POST", "/events/e%201/ack", {}],
    [
      "ack with a result",
      (c) => c.ack("e1", { outcome: "posted", messageId: "m" }),
      json(200, { ok: true }),
      "POST",
      "/events/e1/ack",
      { result: { outcome: "posted", messageId: "m" } },
    ],
    [
      "renew",
      (c) => c.renew("e1", 2),
      json(200, { ok: true, leaseExpiresAt: "2026-11-29T18:00:30Z" }),
      "POST",
      "/events/e1/renew",
      { attempts: 2 },
    ],
    [
      "release with a delay and a reason",
      (c) => c.release("e1", { attempts: 2, delaySeconds: 60, reason: "provider down" }),
      json(200, { ok: true, status: "pending", availableAt: "2026-11-29T18:01:00Z" }),
      "POST",
      "/events/e1/release",
      { attempts: 2, delaySeconds: 60, reason: "provider down" },
    ],
    [
      "batch ack",
      (c) => c.ackMany([{ id: "e1", result: { outcome: "posted", messageId: "m" } }, { id: "e2" }]),
      json(200, {
        results: [
          { id: "e1", ok: true },
          { id: "e2", ok: true },
        ],
      }),
      "POST",
      "/events/ack",
      { acks: [{ id: "e1", result: { outcome: "posted", messageId: "m" } }, { id: "e2" }] },
    ],
    [
      "cancel with a reason",
      (c) => c.cancelEvent("e1", { reason: "wrong repository" }),
      json(200, { ok: true, status: "cancelled", changed: true }),
      "POST",
      "/events/e1/cancel",
      { reason: "wrong repository" },
    ],
    [
      "cancel without a reason",
      (c) => c.cancelEvent("e1"),
      json(200, { ok: true, status: "acked", changed: false }),
      "POST",
      "/events/e1/cancel",
      {},
    ],
    [
      "cancellation watch",
      (c) => c.watchCancellation("e1", { attempts: 2, waitSeconds: 20 }),
      json(200, { cancelRequested: false, leaseExpiresAt: "2026-11-29T18:00:30Z" }),
      "GET",
      "/events/e1/cancellation?attempts=2&waitSeconds=20",
      undefined,
    ],
    [
      "post",
      (c) => c.postMessage("p1", { content: "hi" }),
      json(201, { id: "m", createdAt: "2026-11-29T18:00:00Z" }),
      "POST",
      "/pods/p1/messages",
      { content: "hi" },
    ],
    [
      "list messages",
      (c) => c.listMessages("p1", { limit: 2, before: "m9" }),
      json(200, { messages: [] }),
      "GET",
      "/pods/p1/messages?limit=2&before=m9",
      undefined,
    ],
    ["get memory", (c) => c.getMemory(), json(200, { content: "" }), "GET", "/memory", undefined],
    [
      "put memory",
      (c) => c.putMemory({ content: "x" }),
      json(200, { ok: true, schemaVersion: 2 }),
      "PUT",
      "/memory",
      { content: "x" },
    ],
    [
      "sync memory",
      (c) => c.syncMemory({ sections: {}, mode: "full" }),
      json(200, { ok: true, schemaVersion: 2 }),
      "POST",
      "/memory/sync",
      { sections: {}, mode: "full" },
    ],
    [
      "info",
      (c) => c.info(),
      json(200, {
        protocol: "cap",
        version: "1",
        leaseSeconds: 30,
        maxAttempts: 5,
        maxLimit: 50,
        features: [],
      }),
      "GET",
      "/info",
      undefined,
    ],
    [
      "decision",
      (c) =>
        c.createDecision({
          podId: "p",
          decisionClass: "strategy",
          title: "t",
          question: "q",
          options: ["a", "b"],
        }),
      json(201, { id: "d", messageId: "m", createdAt: "2026-11-29T18:00:00Z" }),
      "POST",
      "/decisions",
      { podId: "p", decisionClass: "strategy", title: "t", question: "q", options: ["a", "b"] },
    ],
  ];
  for (const [name, call, answer, method, path, body] of calls) {
    it(`sends ${method} ${path.split("?")[0]} for ${name}`, async () => {
      const { c, requests, bodies } = scriptedClient([answer]);
      await call(c);
      expect(requests[0]!.method).toBe(method);
      expect(requests[0]!.url).toBe(`http://kernel.test/api/agents/runtime${path}`);
      expect(bodies[0]).toEqual(body);
      if (body !== undefined) expect(requests[0]!.headers.get("content-type")).toBe("application/json");
    });
  }

  it("sends an Idempotency-Key on every post, the same one on each retry", async () => {
    const { c, requests } = scriptedClient([
      json(503, { code: "unavailable", message: "x" }),
      json(201, { id: "m", createdAt: "" }),
    ]);
    await c.postMessage("p1", { content: "hi" });
    const keys = requests.map((r) => r.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it("splits a batch ack of more than 100 items into requests of at most 100", async () => {
    const answer = (request: Request) =>
      request
        .clone()
        .json()
        .then((b: { acks: Array<{ id: string }> }) =>
          json(200, { results: b.acks.map((a) => ({ id: a.id, ok: true })) }),
        );
    const { c, bodies } = scriptedClient([answer]);
    const ids = Array.from({ length: 230 }, (_, i) => ({ id: `e${i}` }));
    const { results } = await c.ackMany(ids);
    expect(results).toHaveLength(230);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(bodies.map((b) => (b as { acks: unknown[] }).acks.length)).toEqual([100, 100, 30]);
  });

  it("falls back to one ack per item on a kernel without POST /events/ack, with the same results", async () => {
    const { c, requests } = scriptedClient([
      json(404, { code: "route_not_found", message: "no route" }),
      json(200, { ok: true }),
      json(404, { code: "event_not_found", message: "gone" }),
    ]);
    expect(await c.ackMany([{ id: "e1", result: { outcome: "acknowledged" } }, { id: "e2" }])).toEqual({
      results: [
        { id: "e1", ok: true },
        { id: "e2", ok: false, code: "event_not_found" },
      ],
    });
    expect(requests.map((r) => new URL(r.url).pathname.replace("/api/agents/runtime", ""))).toEqual([
      "/events/ack",
      "/events/e1/ack",
      "/events/e2/ack",
    ]);
  });

  it("falls back on the production kernel's bodiless 404 too, but not on a refused batch", async () => {
    const prod = scriptedClient([json(404, { message: "Not found" }), json(200, { success: true })]);
    expect(await prod.c.ackMany([{ id: "e1" }])).toEqual({ results: [{ id: "e1", ok: true }] });
    const refused = scriptedClient([json(400, { code: "validation_failed", message: "bad item" })]);
    const error = await refused.c.ackMany([{ id: "e1" }]).catch((e) => e);
    expect(error.code).toBe("validation_failed");
    expect(refused.requests).toHaveLength(1);
  });

  it("uses the caller's Idempotency-Key and reports a replay", async () => {
    const { c, requests } = scriptedClient([
      json(201, { id: "m", createdAt: "t" }, { "idempotent-replayed": "true" }),
    ]);
    expect(await c.postMessage("p", { content: "x" }, { idempotencyKey: "evt_1:reply" })).toEqual({
      id: "m",
      createdAt: "t",
      replayed: true,
    });
    expect(requests[0]!.headers.get("idempotency-key")).toBe("evt_1:reply");
  });
});
