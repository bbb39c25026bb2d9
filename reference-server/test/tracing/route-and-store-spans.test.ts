/**
 * The spans of a tracing kernel's requests, exported in memory: one server span per route, a child of the
 * request's `traceparent` (a malformed, oversized or repeated one starts a new root and changes nothing
 * else); a poll's `receive` span with its `claim`; an ack's `ack`; a post's `commit`.
 */
import { request } from "node:http";
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARENT_ID, startTracedApp, TRACE_ID, TRACEPARENT, type TracedApp } from "./traced-app.js";

const CAP = "/api/agents/runtime";
let t: TracedApp;

beforeAll(async () => {
  t = await startTracedApp();
});
afterAll(async () => {
  await t?.stop();
});

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const traceOf = (s: ReadableSpan) => s.spanContext().traceId;

/** GET `path` with raw header lines (node:http sends an array as repeated headers). */
function rawGet(
  path: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${t.url}${path}`,
      { headers: { authorization: `Bearer ${t.human}`, ...headers } },
      (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("route spans", () => {
  it("makes one server span per request, named by its route, a child of the traceparent it carries", async () => {
    const path = `/api/pods/${t.podId}`;
    expect((await t.call("GET", path, t.human, { headers: { traceparent: TRACEPARENT } })).status).toBe(200);
    const span = t.named("GET /api/pods/:podId").at(-1)!;
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(traceOf(span)).toBe(TRACE_ID);
    expect(parentOf(span)).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      "http.route": "/api/pods/:podId",
      "http.response.status_code": 200,
    });
  });

  it.each<[string, string | string[]]>([
    ["malformed", "00-not-a-trace"],
    ["upper-case hex", TRACEPARENT.toUpperCase()],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${PARENT_ID}-01`],
    ["version ff", `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ["oversized", `01-${TRACE_ID}-${PARENT_ID}-01-${"a".repeat(300)}`],
    ["repeated", [TRACEPARENT, `00-${"1".repeat(32)}-${PARENT_ID}-01`]],
  ])("a %s traceparent starts a new root and changes no answer", async (_name, traceparent) => {
    const path = `/api/pods/${t.podId}`;
    const plain = await rawGet(path, {});
    const before = t.spans().length;
    const answer = await rawGet(path, { traceparent, tracestate: "k=v" });
    expect(answer).toEqual(plain);
    const span = t
      .spans()
      .slice(before)
      .find((s) => s.name === "GET /api/pods/:podId")!;
    expect(parentOf(span)).toBeUndefined();
    expect(traceOf(span)).not.toBe(TRACE_ID);
  });

  it("makes no span for the probes and the metrics", async () => {
    const before = t.spans().length;
    for (const path of ["/healthz", "/readyz", "/metrics"])
      expect((await fetch(`${t.url}${path}`)).status).toBe(200);
    expect(
      t
        .spans()
        .slice(before)
        .map((s) => s.name),
    ).toEqual([]);
  });
});

describe("poll, ack and post spans", () => {
  it("gives a poll a receive span under its request span, and the claim a span under that", async () => {
    expect(
      (await t.call("POST", `/api/pods/${t.podId}/messages`, t.human, { body: { content: "hello" } })).status,
    ).toBe(201);
    const polled = await t.call("GET", `${CAP}/events?limit=5`, t.agent, {
      headers: { traceparent: TRACEPARENT },
    });
    const events = (polled.body as { events: { id: string }[] }).events;
    expect(events).toHaveLength(1);
    const route = t.named("GET /api/agents/runtime/events").at(-1)!;
    const receive = t.named("receive").at(-1)!;
    const claim = t.named("claim").at(-1)!;
    expect(receive.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(receive)).toBe(idOf(route));
    expect(parentOf(claim)).toBe(idOf(receive));
    expect([traceOf(route), traceOf(receive), traceOf(claim)]).toEqual([TRACE_ID, TRACE_ID, TRACE_ID]);
    expect(receive.attributes).toMatchObject({
      "messaging.system": "cap",
      "messaging.operation.type": "receive",
      "messaging.destination.name": "echo",
      "messaging.batch.message_count": 1,
    });
    expect(claim.attributes).toMatchObject({
      "db.system.name": "sqlite",
      "messaging.batch.message_count": 1,
    });

    const acked = await t.call("POST", `${CAP}/events/${events[0]!.id}/ack`, t.agent, {
      body: {},
      headers: { traceparent: TRACEPARENT },
    });
    expect(acked.status).toBe(200);
    const ackRoute = t.named("POST /api/agents/runtime/events/:id/ack").at(-1)!;
    const ack = t.named("ack").at(-1)!;
    expect(parentOf(ackRoute)).toBe(PARENT_ID);
    expect(parentOf(ack)).toBe(idOf(ackRoute));
    expect(traceOf(ack)).toBe(TRACE_ID);
  });

  it("gives a batch ack one ack span counting its events", async () => {
    await t.call("POST", `/api/pods/${t.podId}/messages`, t.human, { body: { content: "one" } });
    await t.call("POST", `/api/pods/${t.podId}/messages`, t.human, { body: { content: "two" } });
    const events = (
      (await t.call("GET", `${CAP}/events?limit=5`, t.agent)).body as { events: { id: string }[] }
    ).events;
    expect(events).toHaveLength(2);
    const answer = await t.call("POST", `${CAP}/events/ack`, t.agent, {
      body: { acks: events.map((e) => ({ id: e.id })) },
    });
    expect(answer.status).toBe(200);
    const ack = t.named("ack").at(-1)!;
    expect(parentOf(ack)).toBe(idOf(t.named("POST /api/agents/runtime/events/ack").at(-1)!));
    expect(ack.attributes["messaging.batch.message_count"]).toBe(2);
  });

  it("gives a post's transaction a commit span under its request span", async () => {
    const posted = await t.call("POST", `/api/pods/${t.podId}/messages`, t.human, {
      body: { content: "committed" },
      headers: { traceparent: TRACEPARENT },
    });
    expect(posted.status).toBe(201);
    const route = t.named("POST /api/pods/:podId/messages").at(-1)!;
    const commits = t.named("commit").filter((s) => parentOf(s) === idOf(route));
    expect(commits).toHaveLength(1);
    expect(traceOf(commits[0]!)).toBe(TRACE_ID);
    expect(commits[0]!.attributes["db.system.name"]).toBe("sqlite");
  });

  it("records a post's send span inside its commit, counting its events, and the event names it", async () => {
    const posted = await t.call("POST", `/api/pods/${t.podId}/messages`, t.human, {
      body: { content: "sent" },
      headers: { traceparent: TRACEPARENT, tracestate: "k=v" },
    });
    expect(posted.status).toBe(201);
    const commit = t.named("commit").at(-1)!;
    const send = t.named("send").at(-1)!;
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(send)).toBe(idOf(commit));
    expect(send.attributes["messaging.batch.message_count"]).toBe(1);
    const polled = await t.call("GET", `${CAP}/events?limit=50`, t.agent);
    const event = (polled.body as { events: { id: string; traceContext?: unknown }[] }).events.at(-1)!;
    expect(event.traceContext).toEqual({ traceparent: `00-${TRACE_ID}-${idOf(send)}-01`, tracestate: "k=v" });
    const link = t
      .named("receive")
      .at(-1)!
      .links.find((l) => l.attributes?.["messaging.message.id"] === event.id);
    expect(link?.context.spanId).toBe(idOf(send));
  });
});
