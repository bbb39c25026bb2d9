/**
 * Messages over HTTP: post (201, verbatim, limits), fan-out (CAP-MSG-7..9), Idempotency-Key (CAP-IDEM-1..4),
 * message read with self/isBot and before (CAP-READ-1..3).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capValidator } from "../helpers/schemas.js";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.app.close();
});

type Ev = { id: string; type: string; payload: Record<string, unknown> };
const drain = (token: string) =>
  w.cap(token, "GET", "/events?limit=50").then(async (r) => {
    const events = r.json().events as Ev[];
    for (const e of events) await w.cap(token, "POST", `/events/${e.id}/ack`);
    return events;
  });
const types = async (token: string) => (await drain(token)).map((e) => e.type);
const human = (content: string, extra: Record<string, unknown> = {}) =>
  w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content, ...extra });
const agentPost = (token: string, body: unknown, headers?: Record<string, string>) =>
  w.cap(token, "POST", `/pods/${w.podA.id}/messages`, body, headers);

describe("posting", () => {
  it("stores content verbatim and answers 201 {id, createdAt}", async () => {
    const content = "  **markdown** <script>alert(1)</script>\n\n— ✓  ";
    const res = await agentPost(w.alpha.token, {
      content,
      metadata: { kind: "answer", nested: { a: [1, null] } },
    });
    expect(res.statusCode).toBe(201);
    expect(capValidator("PostMessageResponse")(res.json())).toBe(true);
    const read = await w.cap(w.beta.token, "GET", `/pods/${w.podA.id}/messages`);
    expect(read.json().messages[0]).toMatchObject({
      id: res.json().id,
      content,
      metadata: { kind: "answer", nested: { a: [1, null] } },
    });
  });

  it("ignores unknown body fields such as the Python SDK's reply_to_message_id", async () => {
    const res = await agentPost(w.alpha.token, {
      content: "hi",
      reply_to_message_id: "msg_x",
      agentName: "beta",
    });
    expect(res.statusCode).toBe(201);
    const [m] = (await w.cap(w.beta.token, "GET", `/pods/${w.podA.id}/messages`)).json().messages;
    expect(m.author).toEqual({ id: w.alpha.agentId, kind: "agent", name: "alpha" });
    expect(m.replyToMessageId).toBeUndefined();
  });

  it("rejects empty or blank content with validation_failed and oversized content with content_too_large", async () => {
    for (const content of ["", "   \n\t "]) {
      const res = await agentPost(w.alpha.token, { content });
      expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
    }
    const big = await agentPost(w.alpha.token, { content: "é".repeat(32769) });
    expect([big.statusCode, big.json().code]).toEqual([413, "content_too_large"]);
    const exact = await agentPost(w.alpha.token, { content: "a".repeat(65536) });
    expect(exact.statusCode).toBe(201);
  });

  it("requires replyToMessageId to name a message of the same pod", async () => {
    const inB = await w.adminApi("POST", `/pods/${w.podB.id}/messages`, { content: "in B" });
    for (const replyToMessageId of ["msg_nope", inB.json().id]) {
      const res = await agentPost(w.alpha.token, { content: "re", replyToMessageId });
      expect([res.statusCode, res.json().code]).toEqual([400, "message_not_in_pod"]);
    }
    const ok = await human("root");
    expect(
      (await agentPost(w.alpha.token, { content: "re", replyToMessageId: ok.json().id })).statusCode,
    ).toBe(201);
  });
});

describe("fan-out", () => {
  it("gives a human's message message.posted to every installed agent, and mention.received instead to the mentioned", async () => {
    const res = await human("hey @Alpha, look", { metadata: { kind: "note" } });
    const a = await drain(w.alpha.token);
    expect(a.map((e) => e.type)).toEqual(["mention.received"]);
    expect(a[0]!.payload).toEqual({
      messageId: res.json().id,
      podId: w.podA.id,
      content: "hey @Alpha, look",
      author: { id: w.admin.id, kind: "human", name: "lily" },
      metadata: { kind: "note" },
      mention: "alpha",
    });
    expect(capValidator("MentionReceivedPayload")(a[0]!.payload)).toBe(true);
    const b = await drain(w.beta.token);
    expect(b.map((e) => e.type)).toEqual(["message.posted"]);
    expect(capValidator("MessagePostedPayload")(b[0]!.payload)).toBe(true);
    expect(await types(w.gamma.token)).toEqual([]);
  });

  it("wakes no one for an agent's message without a mention, and only the mentioned for one with", async () => {
    await agentPost(w.alpha.token, { content: "thinking out loud" });
    expect(await types(w.beta.token)).toEqual([]);
    await agentPost(w.alpha.token, { content: "@beta and @alpha and @gamma" });
    expect(await types(w.beta.token)).toEqual(["mention.received"]);
    expect(await types(w.alpha.token)).toEqual([]);
    expect(await types(w.gamma.token)).toEqual([]);
  });

  it("matches mentions at word boundaries only", async () => {
    const cases: [string, boolean][] = [
      ["@beta", true],
      ["(@beta)", true],
      ["hi @beta.", true],
      ["@BETA!", true],
      ["mail@beta", false],
      ["@betamax", false],
      ["@beta-two", false],
      ["@beta_x", false],
      ["_@beta", false],
    ];
    for (const [content, wakes] of cases) {
      await agentPost(w.alpha.token, { content });
      expect([content, (await types(w.beta.token)).length]).toEqual([content, wakes ? 1 : 0]);
    }
  });

  it("skips message.posted for an installation that opted out, but still delivers its mentions", async () => {
    const quiet = await w.addAgent("quiet", w.podA.id, "default", false);
    await human("general chatter");
    expect(await types(quiet.token)).toEqual([]);
    await human("ping @quiet");
    expect(await types(quiet.token)).toEqual(["mention.received"]);
  });

  it("enqueues the message and its events in one transaction", async () => {
    const res = await human("@alpha hi");
    const events = await w.store.listPodEvents({ podId: w.podA.id, limit: 10 });
    expect(events.every((e) => (e.payload as { messageId: string }).messageId === res.json().id)).toBe(true);
    expect(events).toHaveLength(2);
  });
});

describe("Idempotency-Key", () => {
  const key = { "idempotency-key": "evt_123:reply" };

  it("replays the original 201 for the same key, pod and body, posting nothing", async () => {
    const first = await agentPost(w.alpha.token, { content: "once @beta", metadata: { a: 1, b: 2 } }, key);
    const again = await w.req({
      method: "POST",
      url: `/api/agents/runtime/pods/${w.podA.id}/messages`,
      token: w.alpha.token,
      payload: '{ "metadata": {"b":2,"a":1}, "content": "once @beta" }',
      headers: { ...key, "content-type": "application/json" },
    });
    expect([again.statusCode, again.json()]).toEqual([201, first.json()]);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect((await w.store.listMessages({ podId: w.podA.id, limit: 10 })).length).toBe(1);
    expect(await types(w.beta.token)).toEqual(["mention.received"]);
  });

  it("answers 422 idempotency_key_reused for a different body or pod", async () => {
    await agentPost(w.alpha.token, { content: "one" }, key);
    const res = await agentPost(w.alpha.token, { content: "two" }, key);
    expect([res.statusCode, res.json().code]).toEqual([422, "idempotency_key_reused"]);
    await w.adminApi("POST", "/registry/install", { agentName: "alpha", podId: w.podB.id });
    const other = await w.cap(w.alpha.token, "POST", `/pods/${w.podB.id}/messages`, { content: "one" }, key);
    expect([other.statusCode, other.json().code]).toEqual([422, "idempotency_key_reused"]);
  });

  it("scopes keys to the agent identity", async () => {
    await agentPost(w.alpha.token, { content: "one" }, key);
    expect((await agentPost(w.beta.token, { content: "two" }, key)).statusCode).toBe(201);
  });

  it("does not remember a key whose request failed", async () => {
    const bad = await agentPost(w.alpha.token, { content: "re", replyToMessageId: "msg_nope" }, key);
    expect(bad.statusCode).toBe(400);
    expect((await agentPost(w.alpha.token, { content: "fine" }, key)).statusCode).toBe(201);
  });

  it("creates one message for concurrent posts with the same key", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => agentPost(w.alpha.token, { content: "same" }, key)),
    );
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    expect((await w.store.listMessages({ podId: w.podA.id, limit: 10 })).length).toBe(1);
  });

  it("rejects keys that are empty, too long or not printable ASCII", async () => {
    for (const k of ["x".repeat(256), "tab\tkey", "ключ"]) {
      const res = await agentPost(w.alpha.token, { content: "x" }, { "idempotency-key": k });
      expect([k.length, res.statusCode, res.json().code]).toEqual([k.length, 400, "validation_failed"]);
    }
  });
});

describe("reading messages", () => {
  it("answers newest first with self and isBot, bounded by limit and before", async () => {
    const m1 = (await human("one")).json().id;
    const m2 = (await agentPost(w.alpha.token, { content: "two" })).json().id;
    const m3 = (await agentPost(w.beta.token, { content: "three" })).json().id;
    const res = await w.cap(w.alpha.token, "GET", `/pods/${w.podA.id}/messages`);
    expect(capValidator("PodMessageList")(res.json())).toBe(true);
    expect(
      res.json().messages.map((m: { id: string; self: boolean; isBot: boolean }) => [m.id, m.self, m.isBot]),
    ).toEqual([
      [m3, false, true],
      [m2, true, true],
      [m1, false, false],
    ]);
    const page = await w.cap(w.alpha.token, "GET", `/pods/${w.podA.id}/messages?limit=1&before=${m3}`);
    expect(page.json().messages.map((m: { id: string }) => m.id)).toEqual([m2]);
    const bad = await w.cap(w.alpha.token, "GET", `/pods/${w.podA.id}/messages?before=msg_nope`);
    expect([bad.statusCode, bad.json().code]).toEqual([400, "message_not_in_pod"]);
    for (const limit of ["0", "101", "1.5", "x"]) {
      const r = await w.cap(w.alpha.token, "GET", `/pods/${w.podA.id}/messages?limit=${limit}`);
      expect([limit, r.statusCode, r.json().code]).toEqual([limit, 400, "validation_failed"]);
    }
  });

  it("lets humans read with self meaning their own messages", async () => {
    await human("mine");
    const res = await w.adminApi("GET", `/pods/${w.podA.id}/messages`);
    expect(res.json().messages[0]).toMatchObject({ content: "mine", self: true, isBot: false });
  });
});
