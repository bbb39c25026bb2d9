/**
 * Bad input never gets a 5xx, always gets a registry code with its registry status, and never changes the
 * store. A hand table covers each class (malformed JSON, wrong media type, oversized bodies, wrong types,
 * forbidden unknown fields, bad query values); fast-check then mutates the generated schemas' own examples
 * (drop required fields, swap values for arbitrary JSON, add unknown fields) on every body route.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadErrorRegistry } from "../../src/errors/registry.js";
import { adminValidator, capValidator } from "../helpers/schemas.js";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
let eventId: string;
beforeAll(async () => {
  w = await makeWorld();
  eventId = (
    await w.adminApi("POST", "/admin/events", {
      agentName: "alpha",
      podId: w.podA.id,
      type: "t",
      payload: {},
    })
  ).json().id;
  await w.cap(w.alpha.token, "GET", "/events");
});
afterAll(async () => {
  await w.app.close();
});

async function fingerprint() {
  const s = w.store;
  return JSON.stringify([
    await s.queueStats(),
    (await s.listMessages({ podId: w.podA.id, limit: 10_000 })).length,
    (await s.listMessages({ podId: w.podB.id, limit: 10_000 })).length,
    await s.getMemory(w.alpha.agentId),
    (await s.listDecisions({ podId: w.podA.id })).length,
    (await s.listPods()).length,
    (await s.listUsers()).length,
    (await s.listInstallations({})).length,
  ]);
}

const registry = loadErrorRegistry();
function expectRegistryError(res: { statusCode: number; json(): { code: string; message: string } }) {
  const body = res.json();
  expect(res.statusCode).toBeLessThan(500);
  expect(registry.get(body.code)?.status).toBe(res.statusCode);
  expect(typeof body.message).toBe("string");
  expect(JSON.stringify(body)).not.toMatch(/at .+\.(js|ts):\d+/);
}

async function send(
  method: string,
  url: string,
  token: string,
  payload: string | undefined,
  contentType?: string,
) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (contentType) headers["content-type"] = contentType;
  return w.app.inject({
    method: method as "POST",
    url,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  });
}

const bodyRoutes = () => [
  {
    method: "POST",
    url: `/api/agents/runtime/events/${eventId}/ack`,
    token: w.alpha.token,
    schema: "AckRequest",
    cap: true,
  },
  {
    method: "POST",
    url: `/api/agents/runtime/events/${eventId}/renew`,
    token: w.alpha.token,
    schema: "RenewRequest",
    cap: true,
  },
  {
    method: "POST",
    url: `/api/agents/runtime/pods/${w.podA.id}/messages`,
    token: w.alpha.token,
    schema: "PostMessageRequest",
    cap: true,
  },
  {
    method: "PUT",
    url: "/api/agents/runtime/memory",
    token: w.alpha.token,
    schema: "PutMemoryRequest",
    cap: true,
  },
  {
    method: "POST",
    url: "/api/agents/runtime/memory/sync",
    token: w.alpha.token,
    schema: "SyncMemoryRequest",
    cap: true,
  },
  {
    method: "POST",
    url: "/api/agents/runtime/decisions",
    token: w.alpha.token,
    schema: "DecisionRequest",
    cap: true,
  },
  { method: "POST", url: "/api/pods", token: w.adminToken, schema: "CreatePodRequest", cap: false },
  {
    method: "POST",
    url: `/api/pods/${w.podA.id}/messages`,
    token: w.adminToken,
    schema: "HumanPostMessageRequest",
    cap: false,
  },
  { method: "POST", url: "/api/admin/events", token: w.adminToken, schema: "EmitEventRequest", cap: false },
  { method: "POST", url: "/api/registry/install", token: w.adminToken, schema: "InstallRequest", cap: false },
];

describe("hand table of bad input", () => {
  it("answers malformed JSON with 400 malformed_json on every body route", async () => {
    for (const r of bodyRoutes()) {
      const before = await fingerprint();
      for (const payload of ["{", '{"content": "x",}', "nul", "[1, 2", "\u0000"]) {
        const res = await send(r.method, r.url, r.token, payload, "application/json");
        expect([r.url, payload, res.statusCode, res.json().code]).toEqual([
          r.url,
          payload,
          400,
          "malformed_json",
        ]);
      }
      expect(await fingerprint()).toBe(before);
    }
  });

  it("answers non-JSON media types with 415 before reading the body, even when it is too large", async () => {
    for (const r of bodyRoutes()) {
      for (const type of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/xml",
        "multipart/form-data; boundary=x",
      ]) {
        const res = await send(r.method, r.url, r.token, '{"content":"x"}', type);
        expect([r.url, type, res.statusCode, res.json().code]).toEqual([
          r.url,
          type,
          415,
          "unsupported_media_type",
        ]);
      }
      const big = await send(r.method, r.url, r.token, "x".repeat(2 * 1024 * 1024), "text/plain");
      expect(big.json().code).toBe("unsupported_media_type");
    }
  });

  it("accepts application/json with parameters", async () => {
    const res = await send(
      "POST",
      `/api/agents/runtime/pods/${w.podA.id}/messages`,
      w.alpha.token,
      '{"content":"charset ok"}',
      "application/json; charset=utf-8",
    );
    expect(res.statusCode).toBe(201);
  });

  it("answers bodies over 1 MiB with 413 body_too_large", async () => {
    for (const r of bodyRoutes()) {
      const res = await send(
        r.method,
        r.url,
        r.token,
        JSON.stringify({ content: "x".repeat(1024 * 1024 + 10) }),
        "application/json",
      );
      expect([r.url, res.statusCode, res.json().code]).toEqual([r.url, 413, "body_too_large"]);
    }
  });

  it("answers wrong types and forbidden unknown fields with validation_failed listing {path, message}", async () => {
    const cases: [string, string, unknown, string][] = [
      ["POST", `/api/agents/runtime/pods/${w.podA.id}/messages`, { content: 5 }, "/content"],
      [
        "POST",
        `/api/agents/runtime/pods/${w.podA.id}/messages`,
        { content: "x", metadata: "kind" },
        "/metadata",
      ],
      ["POST", `/api/agents/runtime/pods/${w.podA.id}/messages`, ["content"], "/"],
      [
        "POST",
        `/api/agents/runtime/events/${eventId}/ack`,
        { result: { outcome: "done" } },
        "/result/outcome",
      ],
      ["POST", `/api/agents/runtime/events/${eventId}/renew`, { attempts: "1" }, "/attempts"],
      ["POST", `/api/agents/runtime/events/${eventId}/renew`, {}, "/attempts"],
      ["PUT", "/api/agents/runtime/memory", { sections: { soul: { content: 1 } } }, "/sections/soul/content"],
      [
        "PUT",
        "/api/agents/runtime/memory",
        { sections: { daily: [{ date: "yesterday", content: "x" }] } },
        "/sections/daily/0/date",
      ],
      ["POST", "/api/agents/runtime/memory/sync", { sections: {}, mode: "merge" }, "/mode"],
      [
        "POST",
        "/api/agents/runtime/decisions",
        {
          podId: w.podA.id,
          decisionClass: "strategy",
          title: "t",
          question: "q",
          options: ["a", "b"],
          callbackUrl: "http://x",
        },
        "/callbackUrl",
      ],
    ];
    const before = await fingerprint();
    for (const [method, url, body, path] of cases) {
      const res = await send(method, url, w.alpha.token, JSON.stringify(body), "application/json");
      expect([url, res.statusCode, res.json().code]).toEqual([url, 400, "validation_failed"]);
      expect(res.json().details.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await fingerprint()).toBe(before);
  });

  it("answers out-of-range and non-integer query values with validation_failed, ignoring unknown parameters", async () => {
    for (const q of [
      "limit=0",
      "limit=51",
      "limit=1.5",
      "limit=abc",
      "waitSeconds=26",
      "waitSeconds=-1",
      "limit=1&limit=2",
    ]) {
      const res = await w.cap(w.beta.token, "GET", `/events?${q}`);
      expect([q, res.statusCode, res.json().code]).toEqual([q, 400, "validation_failed"]);
    }
    const ok = await w.cap(w.beta.token, "GET", "/events?limit=10&agentName=x&instanceId=y&junk");
    expect(ok.statusCode).toBe(200);
  });
});

describe("property: schema-derived bad bodies", () => {
  it("never answers 5xx, always answers a registry code, and leaves the store unchanged on 4xx", async () => {
    for (const r of bodyRoutes()) {
      const validate = r.cap ? capValidator(r.schema) : adminValidator(r.schema);
      const schema = validate.schema as {
        properties?: Record<string, unknown>;
        required?: string[];
        examples?: Record<string, unknown>[];
      };
      const example = (schema.examples?.[0] ?? {}) as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(schema.properties ?? {}), ...Object.keys(example)])];
      const field = (k: string) =>
        k in example
          ? fc.oneof(
              { weight: 2, arbitrary: fc.constant(example[k]) },
              { weight: 1, arbitrary: fc.jsonValue() },
            )
          : fc.jsonValue();
      const body = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record(Object.fromEntries(keys.map((k) => [k, field(k)])), { requiredKeys: [] }),
        },
        { weight: 1, arbitrary: fc.jsonValue() },
        {
          weight: 1,
          arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
            maxKeys: 4,
          }),
        },
      );
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const before = await fingerprint();
          const res = await send(
            r.method,
            r.url.replace(w.podA.id, w.podA.id),
            r.token,
            JSON.stringify(b),
            "application/json",
          );
          if (res.statusCode >= 400) {
            expectRegistryError(res);
            expect(await fingerprint()).toBe(before);
          }
          if (!validate(b === undefined ? {} : b)) expect(res.statusCode).toBeGreaterThanOrEqual(400);
        }),
        { numRuns: 40 },
      );
    }
  });
});
