import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CapClient, type CapClientOptions } from "../../src/client.js";
import { CapHttpError, CapSdkError } from "../../src/errors.js";
import { validate } from "../../src/validators.js";
import { json, type Script, scriptedFetch } from "../helpers/fake-fetch.js";

const TOKEN = `cm_agent_${"ab".repeat(32)}`;
const event = {
  id: "evt_1",
  type: "mention.received",
  podId: "pod_1",
  payload: { content: "hi" },
  attempts: 1,
  createdAt: "2026-11-29T18:00:00Z",
};

function client(answers: Script[], options: Partial<CapClientOptions> = {}) {
  const f = scriptedFetch(...answers);
  const sleeps: number[] = [];
  const c = new CapClient({
    baseUrl: "http://kernel.test",
    token: TOKEN,
    fetch: f.fetch,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
  return { c, ...f, sleeps };
}

describe("CapClient requests", () => {
  it("sends the bearer token, a cap-sdk User-Agent and the query of a poll", async () => {
    const { c, requests } = client([json(200, { events: [] })]);
    await c.poll({ limit: 5, waitSeconds: 3 });
    const r = requests[0]!;
    expect(r.method).toBe("GET");
    expect(r.url).toBe("http://kernel.test/api/agents/runtime/events?limit=5&waitSeconds=3");
    expect(r.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    const version = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).version;
    expect(r.headers.get("user-agent")).toBe(`cap-sdk/${version}`);
  });

  it("tolerates a base URL that already ends in the CAP base path", async () => {
    const { c, requests } = client([json(200, { events: [] })], {
      baseUrl: "http://kernel.test/api/agents/runtime/",
    });
    await c.poll();
    expect(requests[0]!.url).toBe("http://kernel.test/api/agents/runtime/events");
  });

  it("appends a caller's product to the User-Agent", async () => {
    const { c, requests } = client([json(200, { events: [] })], { userAgent: "my-driver/2" });
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
      const { c, requests, bodies } = client([answer]);
      await call(c);
      expect(requests[0]!.method).toBe(method);
      expect(requests[0]!.url).toBe(`http://kernel.test/api/agents/runtime${path}`);
      expect(bodies[0]).toEqual(body);
      if (body !== undefined) expect(requests[0]!.headers.get("content-type")).toBe("application/json");
    });
  }

  it("sends an Idempotency-Key on every post, the same one on each retry", async () => {
    const { c, requests } = client([
      json(503, { code: "unavailable", message: "x" }),
      json(201, { id: "m", createdAt: "" }),
    ]);
    await c.postMessage("p1", { content: "hi" });
    const keys = requests.map((r) => r.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it("uses the caller's Idempotency-Key and reports a replay", async () => {
    const { c, requests } = client([
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

describe("CapClient lenient reader", () => {
  // given a kernel answer, want what the method returns.
  const cases: Array<[string, (c: CapClient) => Promise<unknown>, Response, unknown]> = [
    [
      "production events with _id and no id",
      (c) => c.poll(),
      json(200, { events: [{ ...event, id: undefined, _id: "65f0", status: "delivered", __v: 0 }] }),
      { events: [{ ...event, id: "65f0", _id: "65f0", status: "delivered", __v: 0 }] },
    ],
    [
      "an event without payload or attempts",
      (c) => c.poll(),
      json(200, { events: [{ id: "e", type: "curate", podId: 7, createdAt: "t" }] }),
      { events: [{ id: "e", type: "curate", podId: "7", payload: {}, attempts: 1, createdAt: "t" }] },
    ],
    ["a production ack {success: true}", (c) => c.ack("e"), json(200, { success: true }), { ok: true }],
    ["an ack with an empty body", (c) => c.ack("e"), new Response(null, { status: 200 }), { ok: true }],
    [
      "a production post: 200 {success, message}",
      (c) => c.postMessage("p", { content: "x" }),
      json(200, { success: true, message: { _id: "m1", id: "m1", content: "x", createdAt: "t" } }),
      { id: "m1", createdAt: "t", replayed: false },
    ],
    [
      "a CAP post: 201 {id, createdAt}",
      (c) => c.postMessage("p", { content: "x" }),
      json(201, { id: "m2", createdAt: "t" }),
      { id: "m2", createdAt: "t", replayed: false },
    ],
    [
      "a fresh agent's production memory {content: ''}",
      (c) => c.getMemory(),
      json(200, { content: "" }),
      { content: "", sections: {}, schemaVersion: 2 },
    ],
    [
      "a production sync {ok, deduped}",
      (c) => c.syncMemory({ sections: {}, mode: "full" }),
      json(200, { ok: true, deduped: true }),
      { ok: true, deduped: true, schemaVersion: 2 },
    ],
    [
      "messages with _id and no self/isBot flags",
      (c) => c.listMessages("p"),
      json(200, { messages: [{ _id: "m", content: "hi", podId: "p" }] }),
      { messages: [{ _id: "m", id: "m", content: "hi", podId: "p", self: false, isBot: false }] },
    ],
  ];
  for (const [name, call, answer, want] of cases) {
    it(`reads ${name}`, async () => {
      const { c } = client([answer]);
      expect(await call(c)).toEqual(want);
    });
  }

  // given an answer the SDK cannot act on, want the CapSdkError code and a message fragment.
  const unreadable: Array<[string, (c: CapClient) => Promise<unknown>, Response, string, RegExp]> = [
    [
      "an event without any id",
      (c) => c.poll(),
      json(200, { events: [{ type: "x" }] }),
      "invalid_response",
      /events\[0\] without an id/,
    ],
    [
      "a poll without events",
      (c) => c.poll(),
      json(200, { items: [] }),
      "invalid_response",
      /no `events` array/,
    ],
    [
      "a body that is not JSON",
      (c) => c.poll(),
      new Response("<html>", { status: 200, headers: { "content-type": "text/html" } }),
      "invalid_response",
      /not JSON/,
    ],
    [
      "a production post refused with 200",
      (c) => c.postMessage("p", { content: "x" }),
      json(200, { success: false, refused: true, reason: "consecutive_run_cap" }),
      "not_posted",
      /consecutive_run_cap/,
    ],
    [
      "a production post skipped with 200",
      (c) => c.postMessage("p", { content: "x" }),
      json(200, { success: true, skipped: true, reason: "duplicate" }),
      "not_posted",
      /duplicate/,
    ],
    [
      "a renew without leaseExpiresAt",
      (c) => c.renew("e", 1),
      json(200, { ok: true }),
      "invalid_response",
      /leaseExpiresAt/,
    ],
  ];
  for (const [name, call, answer, code, message] of unreadable) {
    it(`fails with ${code} on ${name}`, async () => {
      const { c } = client([answer]);
      const error = (await call(c).catch((e) => e)) as CapSdkError;
      expect(error).toBeInstanceOf(CapSdkError);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    });
  }
});

describe("CapClient errors", () => {
  // given a non-2xx answer, want the CapHttpError's status, code, message fragment and request id.
  const cases: Array<[string, Response, number, string, RegExp, string | undefined]> = [
    [
      "a CAP error with a request id",
      json(
        401,
        { code: "token_revoked", message: "The bearer token has been revoked." },
        { "x-request-id": "req-7" },
      ),
      401,
      "token_revoked",
      /revoked/,
      "req-7",
    ],
    [
      "a production 401 without code",
      json(401, { message: "Invalid agent token" }),
      401,
      "http_401",
      /Invalid agent token/,
      undefined,
    ],
    [
      "a registry-style {error}",
      json(403, { error: "Not installed" }),
      403,
      "http_403",
      /Not installed/,
      undefined,
    ],
    [
      "a plain-text 502 from a proxy",
      new Response("Bad Gateway", { status: 502 }),
      502,
      "http_502",
      /Bad Gateway/,
      undefined,
    ],
    [
      "a 404 event_not_found",
      json(404, { code: "event_not_found", message: "No such event" }),
      404,
      "event_not_found",
      /No such event/,
      undefined,
    ],
  ];
  for (const [name, answer, status, code, message, requestId] of cases) {
    it(`reads ${name} as a CapHttpError`, async () => {
      const { c } = client([answer], { retry: false });
      const error = await c.ack("e").catch((e) => e);
      expect(error).toBeInstanceOf(CapHttpError);
      expect(error).not.toBeInstanceOf(CapSdkError);
      expect({ status: error.status, code: error.code, requestId: error.requestId }).toEqual({
        status,
        code,
        requestId,
      });
      expect(error.message).toMatch(message);
      expect(error.message).toContain("POST /events/{id}/ack");
    });
  }

  it("keeps details and a production reason", async () => {
    const { c } = client([json(400, { message: "bad", code: "validation_failed", reason: "limit" })]);
    const error = await c.poll().catch((e) => e);
    expect(error.details).toEqual({ reason: "limit" });
  });

  it("never puts the token in an error message", async () => {
    const { c } = client([new TypeError("fetch failed")], { retry: false });
    const error = await c.poll().catch((e) => e);
    expect(error.code).toBe("network");
    expect(`${error.message} ${error.stack}`).not.toContain(TOKEN);
  });
});

describe("CapClient retries", () => {
  const unavailable = () => json(503, { code: "unavailable", message: "down" });
  // given answers, a call and the retry policy, want the number of requests, the outcome and the sleeps.
  const cases: Array<[string, Script[], (c: CapClient) => Promise<unknown>, number, string, number[]]> = [
    [
      "a GET through two 503s",
      [unavailable(), unavailable(), json(200, { events: [] })],
      (c) => c.poll(),
      3,
      "ok",
      [375, 750],
    ],
    [
      "a GET through a network error",
      [new TypeError("fetch failed"), json(200, { events: [] })],
      (c) => c.poll(),
      2,
      "ok",
      [375],
    ],
    ["a GET giving up after two retries", [unavailable()], (c) => c.poll(), 3, "unavailable", [375, 750]],
    [
      "a 429 honouring Retry-After",
      [json(429, { code: "rate_limited", message: "slow" }, { "retry-after": "2" }), json(200, { ok: true })],
      (c) => c.ack("e"),
      2,
      "ok",
      [2000],
    ],
    [
      "a Retry-After longer than the cap, not waited for",
      [json(429, { code: "rate_limited", message: "slow" }, { "retry-after": "3600" })],
      (c) => c.ack("e"),
      1,
      "rate_limited",
      [],
    ],
    [
      "a 500, never retried",
      [json(500, { code: "internal_error", message: "x" })],
      (c) => c.poll(),
      1,
      "internal_error",
      [],
    ],
    [
      "a 409, never retried",
      [json(409, { code: "lease_lost", message: "x" })],
      (c) => c.renew("e", 1),
      1,
      "lease_lost",
      [],
    ],
    [
      "a decision (not idempotent), never retried",
      [unavailable()],
      (c) =>
        c.createDecision({
          podId: "p",
          decisionClass: "strategy",
          title: "t",
          question: "q",
          options: ["a", "b"],
        }),
      1,
      "unavailable",
      [],
    ],
    ["a 504 then success", [json(504, {}), json(200, { events: [] })], (c) => c.poll(), 2, "ok", [375]],
  ];
  for (const [name, answers, call, count, outcome, sleeps] of cases) {
    it(`retries ${name}`, async () => {
      const t = client(answers);
      const result = await call(t.c).then(
        () => "ok",
        (e) => e.code,
      );
      expect({ requests: t.requests.length, outcome, sleeps: t.sleeps }).toEqual({
        requests: count,
        outcome: result,
        sleeps,
      });
    });
  }

  it("does not retry when the per-call retries is 0", async () => {
    const t = client([unavailable()]);
    await t.c.poll({}, { retries: 0 }).catch(() => {});
    expect(t.requests).toHaveLength(1);
  });
});

describe("CapClient timeouts and aborts", () => {
  const hang: Script = (request) =>
    new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));

  it("fails with timeout when the kernel does not answer in time", async () => {
    const { c } = client([hang], { timeoutMs: 20, retry: false });
    const error = await c.getMemory().catch((e) => e);
    expect(error).toBeInstanceOf(CapSdkError);
    expect(error.code).toBe("timeout");
  });

  it("gives a poll its waitSeconds on top of the timeout", async () => {
    let aborted = false;
    const slow: Script = (request) =>
      new Promise((resolve) => {
        request.signal.addEventListener("abort", () => {
          aborted = true;
        });
        setTimeout(() => resolve(json(200, { events: [] })), 60);
      });
    const { c } = client([slow], { timeoutMs: 20, retry: false });
    await c.poll({ waitSeconds: 1 });
    expect(aborted).toBe(false);
  });

  it("fails with aborted when the caller's signal fires", async () => {
    const { c } = client([hang]);
    const controller = new AbortController();
    const pending = c.getMemory({ signal: controller.signal }).catch((e) => e);
    controller.abort();
    const error = await pending;
    expect(error.code).toBe("aborted");
  });
});

describe("CapClient validate mode", () => {
  it("names the field of the kernel's answer that breaks the schema", async () => {
    const { c } = client([json(200, { events: [{ ...event, attempts: 0 }] })], { validate: true });
    const error = await c.poll().catch((e) => e);
    expect(error.code).toBe("invalid_response");
    expect(error.message).toMatch(/EventList.*\/events\/0\/attempts must be >= 1/);
    expect(error.details.issues[0]).toMatchObject({ path: "/events/0/attempts" });
  });

  it("rejects the production kernel's _id-only events", async () => {
    const { c } = client([json(200, { events: [{ ...event, id: undefined, _id: "x" }] })], {
      validate: validate,
    });
    await expect(c.poll()).rejects.toThrow(/\/events\/0 is missing required property "id"/);
  });

  it("rejects a post answered 200 instead of 201", async () => {
    const { c } = client([json(200, { id: "m", createdAt: "2026-11-29T18:00:00Z" })], { validate: true });
    await expect(c.postMessage("p", { content: "x" })).rejects.toThrow(/answered 200; CAP says 201/);
  });

  it("rejects an error body without a code", async () => {
    const { c } = client([json(401, { message: "Invalid agent token" })], { validate: true });
    const error = await c.poll().catch((e) => e);
    expect(error.code).toBe("invalid_response");
    expect(error.cause).toBeInstanceOf(CapHttpError);
    expect(error.message).toMatch(/missing required property "code"/);
  });

  it("accepts answers that follow the spec", async () => {
    const { c } = client([json(200, { events: [event] })], { validate: true });
    expect((await c.poll()).events).toEqual([event]);
  });
});
