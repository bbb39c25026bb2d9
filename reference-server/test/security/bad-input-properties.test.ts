/**
 * Property-based bad input (issue 30, Deliver 4), on both stores: bodies generated from the JSON Schemas
 * (schema-arbitraries.ts) — valid, with a field replaced, dropped or added, as non-JSON text, nested exactly
 * at `limits.maxJsonDepth` and one level past it, and with text exactly at the message and memory-section
 * byte limits and one byte past them (in 1- to 4-byte characters) — sent to every CAP body route and a few
 * admin ones. Never a 5xx; every refusal is the registry shape with the registry's status; a refused write
 * leaves the store as it was; the limits fall exactly where /info says. Bounded (numRuns) to run in seconds.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { loadErrorRegistry } from "../../src/errors/registry.js";
import { makeWorld, type World } from "../helpers/world.js";
import { nestedText } from "./json-bodies.js";
import { adminBody, capBody } from "./schema-arbitraries.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

const { maxJsonDepth, maxMemorySectionBytes } = DEFAULT_CONFIG.limits;
const { maxMessageBytes } = DEFAULT_CONFIG;
const RUNS = 25;
const registry = loadErrorRegistry();

type Tag =
  | { kind: "plain" }
  | { kind: "depth"; depth: number }
  | { kind: "size"; over: boolean; limit: string };
interface Case {
  tag: Tag;
  text: string;
}

/** `body` (an object) with one more field holding objects nested so the whole body is `depth` deep. */
function atDepth(body: unknown, depth: number): string {
  const rest = JSON.stringify(body ?? {}).slice(1);
  return `{"zz":${nestedText(depth - 1)}${rest === "}" ? "" : ","}${rest}`;
}

/** A string of exactly `bytes` UTF-8 bytes made mostly of `ch`. */
function textOf(bytes: number, ch: string): string {
  const unit = Buffer.byteLength(ch);
  return ch.repeat(Math.floor(bytes / unit)) + "a".repeat(bytes % unit);
}

const cases = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<Case> =>
  fc.oneof(
    valid.map((b) => ({ tag: { kind: "plain" as const }, text: JSON.stringify(b) })),
    fc
      .tuple(valid, fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), fc.boolean())
      .map(([b, key, value, drop]) => {
        const o = { ...(b as object) } as Record<string, unknown>;
        const keys = Object.keys(o);
        const k = keys.length && drop ? keys[key.length % keys.length]! : key;
        if (drop) delete o[k];
        else o[k] = value;
        return { tag: { kind: "plain" as const }, text: JSON.stringify(o) };
      }),
    fc.string({ unit: "binary", maxLength: 30 }).map((text) => ({ tag: { kind: "plain" as const }, text })),
    fc
      .tuple(valid, fc.constantFrom(maxJsonDepth, maxJsonDepth + 1))
      .map(([b, depth]) => ({ tag: { kind: "depth" as const, depth }, text: atDepth(b, depth) })),
  );

const sized = (limit: string, max: number, wrap: (text: string) => unknown): fc.Arbitrary<Case> =>
  fc.tuple(fc.boolean(), fc.constantFrom("a", "é", "€", "😀")).map(([over, ch]) => ({
    tag: { kind: "size" as const, over, limit },
    text: JSON.stringify(wrap(textOf(max + (over ? 1 : 0), ch))),
  }));

describe.each(STORES)("bad input properties on $name", ({ name, skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let eventId: string;
  beforeAll(async () => {
    if (skip) return;
    opened = await open();
    // Posting quotas are not what these properties are about (rate-limits.test.ts is).
    w = await makeWorld({
      store: opened.store,
      config: { limits: { messagesPerMinute: 1e6, messageBytesPerMinute: 1e9 } },
    });
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
    if (skip) return;
    await w.app.close();
    await opened.close();
  });

  const fingerprint = async () => {
    const s = opened.store;
    return JSON.stringify([
      await s.queueStats(),
      await s.listMessages({ podId: w.podA.id, limit: 10_000 }),
      await s.getMemory(w.alpha.agentId),
      await s.listDecisions({ podId: w.podA.id }),
      (await s.listPods()).length,
      await s.listRegistryAgents(),
      (await s.listJoinCodes(w.podA.id)).length,
    ]);
  };

  const routes = () => {
    const cap = (path: string) => `/api/agents/runtime${path}`;
    const A = w.podA.id;
    return [
      {
        method: "POST",
        url: cap(`/events/${eventId}/ack`),
        agent: true,
        cases: cases(capBody("AckRequest")),
      },
      {
        method: "POST",
        url: cap(`/events/${eventId}/renew`),
        agent: true,
        cases: cases(capBody("RenewRequest")),
      },
      {
        method: "POST",
        url: cap(`/events/${eventId}/release`),
        agent: true,
        cases: cases(capBody("ReleaseRequest")),
      },
      { method: "POST", url: cap("/events/ack"), agent: true, cases: cases(capBody("BatchAckRequest")) },
      { method: "POST", url: cap("/decisions"), agent: true, cases: cases(capBody("DecisionRequest")) },
      {
        method: "POST",
        url: cap(`/pods/${A}/messages`),
        agent: true,
        cases: fc.oneof(
          cases(capBody("PostMessageRequest")),
          sized("maxMessageBytes", maxMessageBytes, (content) => ({ content })),
        ),
      },
      {
        method: "PUT",
        url: cap("/memory"),
        agent: true,
        cases: fc.oneof(
          cases(capBody("PutMemoryRequest")),
          sized("maxMemorySectionBytes", maxMemorySectionBytes, (content) => ({
            sections: { soul: { content } },
          })),
        ),
      },
      {
        method: "POST",
        url: cap("/memory/sync"),
        agent: true,
        cases: fc.oneof(
          cases(capBody("SyncMemoryRequest")),
          sized("maxMemorySectionBytes", maxMemorySectionBytes, (content) => ({
            mode: "patch",
            sections: { daily: [{ date: "2026-05-01", content }] },
          })),
        ),
      },
      { method: "POST", url: "/api/admin/events", agent: false, cases: cases(adminBody("EmitEventRequest")) },
      {
        method: "POST",
        url: `/api/pods/${A}/messages`,
        agent: false,
        cases: cases(adminBody("HumanPostMessageRequest")),
      },
      {
        method: "POST",
        url: `/api/pods/${A}/join-codes`,
        agent: false,
        cases: cases(adminBody("CreateJoinCodeRequest")),
      },
      {
        method: "POST",
        url: "/api/registry/publish",
        agent: false,
        cases: cases(adminBody("PublishRequest")),
      },
    ];
  };

  it.skipIf(skip)(
    `never answers 5xx, refuses in the registry shape and applies nothing it refused (${skip ?? name})`,
    async () => {
      for (const route of routes()) {
        await fc.assert(
          fc.asyncProperty(route.cases, async ({ tag, text }) => {
            const before = await fingerprint();
            const res = await w.app.inject({
              method: route.method as "POST",
              url: route.url,
              headers: {
                authorization: `Bearer ${route.agent ? w.alpha.token : w.adminToken}`,
                "content-type": "application/json",
              },
              payload: text,
            });
            const where = `${route.method} ${route.url} ${JSON.stringify(tag)}: ${res.statusCode} ${res.body.slice(0, 200)}`;
            expect(res.statusCode, where).toBeLessThan(500);
            const body =
              res.statusCode >= 400
                ? (res.json() as { code: string; message: string; details?: { limit?: string } })
                : null;
            if (body) {
              expect(registry.get(body.code)?.status, where).toBe(res.statusCode);
              expect(typeof body.message, where).toBe("string");
              expect(await fingerprint(), where).toBe(before);
            }
            if (tag.kind === "depth")
              expect(body?.code === "json_too_deep", where).toBe(tag.depth > maxJsonDepth);
            if (tag.kind === "size") {
              const code = tag.limit === "maxMessageBytes" ? "content_too_large" : "memory_too_large";
              const refusedForIt =
                body?.code === code && (code === "content_too_large" || body.details?.limit === tag.limit);
              expect(refusedForIt, where).toBe(tag.over);
            }
          }),
          { numRuns: RUNS },
        );
      }
    },
  );
});
