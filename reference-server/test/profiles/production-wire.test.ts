/**
 * Every wire difference of the `production` profile, and every production bug it deliberately does not
 * copy, side by side with the default profile (which must stay CAP v1 exactly). In-process through
 * inject(); the deployed drivers over real sockets are in deployed-drivers.test.ts.
 */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/http/logger.js";
import { productionType } from "../../src/profiles/production.js";
import { sha256Hex } from "../../src/secrets.js";
import { capValidator } from "../helpers/schemas.js";
import { makeWorld, type World } from "../helpers/world.js";

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.app.close();
});
async function world(profile: "cap" | "production") {
  const w = await makeWorld({ profile });
  worlds.push(w);
  return w;
}

const humanPost = (w: World, body: Record<string, unknown>) =>
  w.adminApi("POST", `/pods/${w.podA.id}/messages`, body).then((r) => r.json() as { id: string });
const emit = (w: World, type: string, payload: Record<string, unknown>) =>
  w.adminApi("POST", "/admin/events", { agentName: "alpha", podId: w.podA.id, type, payload });
const poll = (w: World, q = "") => w.cap(w.alpha.token, "GET", `/events${q}`).then((r) => r.json().events);

describe("event types", () => {
  it.each([
    // [stored (CAP) type, payload, production wire type]
    ["mention.received", { content: "@alpha hi" }, "chat.mention"],
    ["mention.received", { content: "@alpha hi", replyToMessageId: "msg_1" }, "thread.mention"],
    ["heartbeat.tick", { tickAt: "2026-12-01T00:00:00Z" }, "heartbeat"],
    ["message.posted", { content: "hi" }, "message.posted"],
    ["summary.ready", { summaryId: "s", content: "x" }, "summary.ready"],
    ["task.assigned", { taskId: "t", title: "x" }, "task.assigned"],
    ["summary.request", {}, "summary.request"],
  ])("%s %j goes out as %s", (type, payload, wire) => {
    expect(productionType(type, () => payload)).toBe(wire);
  });

  it("production: a human's @mention is chat.mention, one in a thread thread.mention, a heartbeat heartbeat", async () => {
    const w = await world("production");
    const root = await humanPost(w, { content: "a root" });
    await humanPost(w, { content: "@alpha top level" });
    await humanPost(w, { content: "@alpha in the thread", replyToMessageId: root.id });
    await emit(w, "heartbeat.tick", { tickAt: new Date().toISOString() });
    const events = await poll(w);
    expect(events.map((e: { type: string }) => e.type)).toEqual([
      "message.posted",
      "chat.mention",
      "thread.mention",
      "heartbeat",
    ]);
    // The payload fields deployed drivers read, and `_id` beside `id`.
    expect(events[1]).toMatchObject({
      _id: events[1].id,
      podId: w.podA.id,
      payload: { content: "@alpha top level", podId: w.podA.id, author: { kind: "human", name: "lily" } },
    });
    expect(events[1].payload.messageId).toBeTypeOf("string");
    // The store keeps the CAP names: the operator's queue view is not dialect.
    const queue = (await w.adminApi("GET", `/admin/pods/${w.podA.id}/queue`)).json();
    const alpha = queue.agents.find((a: { agentName: string }) => a.agentName === "alpha");
    expect(alpha.events.map((e: { type: string }) => e.type).sort()).toEqual(
      ["heartbeat.tick", "mention.received", "mention.received", "message.posted"].sort(),
    );
  });

  it("cap: the same messages are mention.received and heartbeat.tick, in the generated Event shape", async () => {
    const w = await world("cap");
    await humanPost(w, { content: "@alpha top level" });
    await emit(w, "heartbeat.tick", { tickAt: new Date().toISOString() });
    const res = await w.cap(w.alpha.token, "GET", "/events");
    expect(capValidator("EventList")(res.json())).toBe(true);
    expect(res.json().events.map((e: { type: string }) => e.type)).toEqual([
      "mention.received",
      "heartbeat.tick",
    ]);
  });
});

describe("answers", () => {
  it("production: an ack answers 200 {success: true}; a post 200 {success, message: {_id, id, content, createdAt, …}}", async () => {
    const w = await world("production");
    await emit(w, "task.assigned", { taskId: "t", title: "x" });
    const [e] = await poll(w);
    const ack = await w.cap(w.alpha.token, "POST", `/events/${e._id}/ack`, { result: { outcome: "posted" } });
    expect([ack.statusCode, ack.json()]).toEqual([200, { success: true }]);
    const post = await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, {
      content: "hello",
      metadata: { kind: "note" },
    });
    expect(post.statusCode).toBe(200);
    const { success, message } = post.json();
    expect(success).toBe(true);
    expect(message).toMatchObject({
      _id: message.id,
      podId: w.podA.id,
      content: "hello",
      author: { id: w.alpha.agentId, kind: "agent", name: "alpha" },
      metadata: { kind: "note" },
    });
    expect(new Date(message.createdAt).toISOString()).toBe(message.createdAt);
  });

  it("production: an Idempotency-Key replay answers the same message and posts nothing", async () => {
    const w = await world("production");
    const send = () =>
      w.cap(
        w.alpha.token,
        "POST",
        `/pods/${w.podA.id}/messages`,
        { content: "once" },
        { "idempotency-key": "k1" },
      );
    const [a, b] = [await send(), await send()];
    expect(b.headers["idempotent-replayed"]).toBe("true");
    expect(b.json()).toEqual(a.json());
    const read = (await w.cap(w.alpha.token, "GET", `/pods/${w.podA.id}/messages`)).json().messages;
    expect(read.filter((m: { content: string }) => m.content === "once")).toHaveLength(1);
  });

  it("cap: an ack answers {ok: true} and a post 201 {id, createdAt}", async () => {
    const w = await world("cap");
    await emit(w, "task.assigned", { taskId: "t", title: "x" });
    const [e] = await poll(w);
    const ack = await w.cap(w.alpha.token, "POST", `/events/${e.id}/ack`);
    expect([ack.statusCode, ack.json()]).toEqual([200, { ok: true }]);
    const post = await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, { content: "hello" });
    expect(post.statusCode).toBe(201);
    expect(Object.keys(post.json()).sort()).toEqual(["createdAt", "id"]);
  });
});

describe("what deployed drivers send", () => {
  it.each(["cap", "production"] as const)(
    "%s: ignores agentName/instanceId on the poll, snake-case reply_to_message_id and result.content",
    async (profile) => {
      const w = await world(profile);
      const root = await humanPost(w, { content: "@alpha root" });
      const [e] = await poll(w, `?agentName=beta&instanceId=other&limit=10`);
      expect(e.payload.content).toBe("@alpha root");
      const post = await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, {
        content: "(py) reply",
        reply_to_message_id: root.id,
      });
      expect(post.statusCode).toBe(profile === "cap" ? 201 : 200);
      const ack = await w.cap(w.alpha.token, "POST", `/events/${e.id}/ack`, {
        result: { outcome: "posted", content: "(py) reply" },
      });
      expect(ack.statusCode).toBe(200);
      const read = (await w.cap(w.alpha.token, "GET", `/pods/${w.podA.id}/messages?limit=10`)).json()
        .messages;
      const mine = read.find((m: { content: string }) => m.content === "(py) reply");
      // Ignored, as the production kernel ignores it: the reply is not threaded.
      expect(mine.replyToMessageId).toBeUndefined();
      expect([mine.self, mine.isBot]).toEqual([true, true]);
      const theirs = read.find((m: { id: string }) => m.id === root.id);
      expect([theirs.self, theirs.isBot]).toEqual([false, false]);
    },
  );

  it("production: x-commonly-agent-token authenticates when no Bearer header is present; Bearer wins", async () => {
    const w = await world("production");
    const only = await w.cap(null, "GET", "/events", undefined, { "x-commonly-agent-token": w.alpha.token });
    expect(only.statusCode).toBe(200);
    const both = await w.cap(w.beta.token, "GET", "/memory", undefined, {
      "x-commonly-agent-token": "cm_agent_x",
    });
    expect(both.statusCode).toBe(200);
    const bad = await w.cap(null, "GET", "/events", undefined, { "x-commonly-agent-token": "cm_agent_nope" });
    expect([bad.statusCode, bad.json().code]).toEqual([401, "token_malformed"]);
    const unknown = `cm_agent_${"0".repeat(64)}`;
    const notIssued = await w.cap(null, "GET", "/events", undefined, { "x-commonly-agent-token": unknown });
    expect([notIssued.statusCode, notIssued.json().code]).toEqual([401, "token_unknown"]);
    // Still stored only as its SHA-256.
    expect((await w.store.findRuntimeTokenByHash(sha256Hex(w.alpha.token)))?.token.id).toBe(w.alpha.tokenId);
  });

  it("production: a token sent as x-commonly-agent-token never reaches the logs", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const w = await makeWorld({ profile: "production", logger: createLogger({ level: "trace", stream }) });
    worlds.push(w);
    const res = await w.cap(null, "GET", "/events", undefined, { "x-commonly-agent-token": w.alpha.token });
    expect(res.statusCode).toBe(200);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(w.alpha.token.slice(-40));
  });

  it("cap: x-commonly-agent-token alone is 401 auth_required", async () => {
    const w = await world("cap");
    const res = await w.cap(null, "GET", "/events", undefined, { "x-commonly-agent-token": w.alpha.token });
    expect([res.statusCode, res.json().code]).toEqual([401, "auth_required"]);
  });

  it.each(["cap", "production"] as const)(
    "%s: has no claim route; the deployed CLI's POST /messages/:id/claim is 404 route_not_found, which it tolerates",
    async (profile) => {
      const w = await world(profile);
      const m = await humanPost(w, { content: "claim me" });
      const res = await w.cap(w.alpha.token, "POST", `/messages/${m.id}/claim`);
      expect([res.statusCode, res.json().code]).toEqual([404, "route_not_found"]);
    },
  );
});

describe("production bugs the profile does not copy", () => {
  it("acks of unknown, malformed or another agent's event ids are 404 event_not_found, never 200 or 500", async () => {
    const w = await world("production");
    await w.adminApi("POST", "/admin/events", {
      agentName: "beta",
      podId: w.podA.id,
      type: "x",
      payload: {},
    });
    const [theirs] = (await w.cap(w.beta.token, "GET", "/events")).json().events;
    for (const id of ["evt_doesnotexist", "%E2%98%83not-an-id", theirs.id]) {
      const res = await w.cap(w.alpha.token, "POST", `/events/${id}/ack`);
      expect([res.statusCode, res.json().code], id).toEqual([404, "event_not_found"]);
    }
  });

  it("posting with metadata.sourceEventId after the ack does not re-open the acked event", async () => {
    const w = await world("production");
    await emit(w, "task.assigned", { taskId: "t", title: "x" });
    const [e] = await poll(w);
    await w.cap(w.alpha.token, "POST", `/events/${e.id}/ack`);
    const post = await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, {
      content: "done",
      metadata: { sourceEventId: e.id },
    });
    expect(post.statusCode).toBe(200);
    expect(await poll(w)).toEqual([]);
    const stored = await w.store.getEvent(e.id);
    expect(stored?.state).toBe("acked");
  });

  it("a post with blank content is 400 validation_failed, not 200 {skipped: true}", async () => {
    const w = await world("production");
    const res = await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, { content: "  " });
    expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
  });
});

describe("the profile is visible", () => {
  it("production: /info says profile production and /readyz names it", async () => {
    const w = await world("production");
    const info = (await w.cap(w.alpha.token, "GET", "/info")).json();
    expect(capValidator("Info")(info)).toBe(true);
    expect(info.profile).toBe("production");
    expect((await w.req({ url: "/readyz" })).json()).toMatchObject({ ok: true, profile: "production" });
  });

  it("cap: /info carries no profile (CAP v1 unchanged) and /readyz says cap", async () => {
    const w = await world("cap");
    expect((await w.cap(w.alpha.token, "GET", "/info")).json()).not.toHaveProperty("profile");
    expect((await w.req({ url: "/readyz" })).json()).toMatchObject({ ok: true, profile: "cap" });
  });
});
