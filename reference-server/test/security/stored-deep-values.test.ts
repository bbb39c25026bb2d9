/**
 * Nothing already stored can make a read fail (issue 30, finding 3): before the depth limit, SQLite stored a
 * message thousands of levels deep (201), after which reading the pod's messages answered 500 for everyone
 * — JSON.stringify of the answer overflowed the stack. Values that deep are planted here straight into each
 * store's tables (no HTTP limit in the way); every read that carries them answers 200, with the over-deep
 * parts replaced by the documented placeholder and everything else intact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOO_DEEP_PLACEHOLDER } from "../../src/http/json-depth.js";
import { makeWorld, type World } from "../helpers/world.js";
import { nestedText } from "./json-bodies.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

// Far past what JSON.stringify survives (about 4,100 levels in a kernel process, fewer in a test worker).
const PLANTED = 20_000;

describe.each(STORES)("stored values too deep to serialize, on $name", ({ skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let deepMessageId: string;
  let eventId: string;
  beforeAll(async () => {
    if (skip) return;
    opened = await open();
    w = await makeWorld({ store: opened.store });
    const post = (content: string) =>
      w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, { content, metadata: { kept: true } });
    await post("before");
    deepMessageId = (await post("planted")).json().id;
    await post("after");
    eventId = (
      await w.adminApi("POST", "/admin/events", {
        agentName: "beta",
        podId: w.podA.id,
        type: "t",
        payload: {},
      })
    ).json().id;
    const deep = nestedText(PLANTED);
    await opened.raw("UPDATE messages SET metadata = $1 WHERE id = $2", [deep, deepMessageId]);
    await opened.raw(
      "UPDATE event_payloads SET payload = $1 WHERE seq = (SELECT seq FROM events WHERE id = $2)",
      [deep, eventId],
    );
    await opened.raw("UPDATE registry_agents SET manifest = $1 WHERE name = 'gamma'", [
      `{"name":"gamma","x":${deep}}`,
    ]);
  });
  afterAll(async () => {
    if (skip) return;
    await w.app.close();
    await opened.close();
  });

  /** The planted value as an answer carries it: nested objects down to the placeholder. */
  function placeholderDepth(value: unknown): number {
    let depth = 0;
    let v = value;
    while (typeof v === "object" && v !== null) {
      v = (v as { a?: unknown }).a;
      depth++;
    }
    expect(v).toBe(TOO_DEEP_PLACEHOLDER);
    return depth;
  }

  it.skipIf(skip)(
    "answers the pod's messages 200 to agents and humans, the deep metadata cut short",
    async () => {
      for (const res of [
        await w.cap(w.beta.token, "GET", `/pods/${w.podA.id}/messages`),
        await w.adminApi("GET", `/pods/${w.podA.id}/messages`),
      ]) {
        expect(res.statusCode).toBe(200);
        const messages = res.json().messages as { id: string; content: string; metadata?: unknown }[];
        expect(messages.map((m) => m.content)).toEqual(
          expect.arrayContaining(["before", "planted", "after"]),
        );
        const planted = messages.find((m) => m.id === deepMessageId)!;
        // The answer as a whole is no deeper than the limit (64): {messages:[{metadata:…}]} takes three levels.
        expect(placeholderDepth(planted.metadata)).toBeLessThanOrEqual(64 - 3);
        for (const m of messages.filter((m) => m.id !== deepMessageId))
          expect(m.metadata).toEqual({ kept: true });
      }
    },
  );

  it.skipIf(skip)("answers the console's queue view and the registry listing 200", async () => {
    const queue = await w.adminApi("GET", `/admin/pods/${w.podA.id}/queue`);
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain(TOO_DEEP_PLACEHOLDER);
    expect(queue.body).toContain(eventId);
    const registry = await w.adminApi("GET", "/registry/agents");
    expect(registry.statusCode).toBe(200);
    const names = (registry.json().agents as { name: string }[]).map((a) => a.name).sort();
    expect(names).toEqual(["alpha", "beta", "gamma"]);
  });

  it.skipIf(skip)(
    "hands the planted event to its agent as stored, which JSON.parse reads whole",
    async () => {
      const res = await w.cap(w.beta.token, "GET", "/events");
      expect(res.statusCode).toBe(200);
      const events = res.json().events as { id: string; payload: unknown }[];
      const planted = events.find((e) => e.id === eventId);
      expect(planted).toBeDefined();
      expect(res.body).toContain(nestedText(PLANTED));
    },
  );
});
