/**
 * CapClient: retries, timeouts, aborts, and the validate mode.
 */
import { describe, expect, it } from "vitest";
import type { CapClient } from "../../src/client.js";
import { CapHttpError, CapSdkError } from "../../src/errors.js";
import { validate } from "../../src/validators.js";
import { exampleEvent, json, type Script, scriptedClient } from "../helpers/fake-fetch.js";

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
      const t = scriptedClient(answers);
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
    const t = scriptedClient([unavailable()]);
    await t.c.poll({}, { retries: 0 }).catch(() => {});
    expect(t.requests).toHaveLength(1);
  });
});

describe("CapClient timeouts and aborts", () => {
  const hang: Script = (request) =>
    new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));

  it("fails with timeout when the kernel does not answer in time", async () => {
    const { c } = scriptedClient([hang], { timeoutMs: 20, retry: false });
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
    const { c } = scriptedClient([slow], { timeoutMs: 20, retry: false });
    await c.poll({ waitSeconds: 1 });
    expect(aborted).toBe(false);
  });

  it("fails with aborted when the caller's signal fires", async () => {
    const { c } = scriptedClient([hang]);
    const controller = new AbortController();
    const pending = c.getMemory({ signal: controller.signal }).catch((e) => e);
    controller.abort();
    const error = await pending;
    expect(error.code).toBe("aborted");
  });
});

describe("CapClient validate mode", () => {
  it("names the field of the kernel's answer that breaks the schema", async () => {
    const { c } = scriptedClient([json(200, { events: [{ ...exampleEvent, attempts: 0 }] })], {
      validate: true,
    });
    const error = await c.poll().catch((e) => e);
    expect(error.code).toBe("invalid_response");
    expect(error.message).toMatch(/EventList.*\/events\/0\/attempts must be >= 1/);
    expect(error.details.issues[0]).toMatchObject({ path: "/events/0/attempts" });
  });

  it("rejects the production kernel's _id-only events", async () => {
    const { c } = scriptedClient([json(200, { events: [{ ...exampleEvent, id: undefined, _id: "x" }] })], {
      validate: validate,
    });
    await expect(c.poll()).rejects.toThrow(/\/events\/0 is missing required property "id"/);
  });

  it("rejects a post answered 200 instead of 201", async () => {
    const { c } = scriptedClient([json(200, { id: "m", createdAt: "2026-11-29T18:00:00Z" })], {
      validate: true,
    });
    await expect(c.postMessage("p", { content: "x" })).rejects.toThrow(/answered 200; CAP says 201/);
  });

  it("rejects an error body without a code", async () => {
    const { c } = scriptedClient([json(401, { message: "Invalid agent token" })], { validate: true });
    const error = await c.poll().catch((e) => e);
    expect(error.code).toBe("invalid_response");
    expect(error.cause).toBeInstanceOf(CapHttpError);
    expect(error.message).toMatch(/missing required property "code"/);
  });

  it("accepts answers that follow the spec", async () => {
    const { c } = scriptedClient([json(200, { events: [exampleEvent] })], { validate: true });
    expect((await c.poll()).events).toEqual([exampleEvent]);
  });
});
