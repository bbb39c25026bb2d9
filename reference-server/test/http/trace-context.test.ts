/**
 * Trace context (feature `trace-context`, CAP-TRACE-1..8) on a real kernel over sockets, on SQLite and on
 * PostgreSQL: the context of a human's post, an agent's post, a decision answer and an operator inject
 * reaches every event it enqueues, the same on every delivery, replayed poll, dead-letter and queue view
 * and after a requeue; malformed, oversized and repeated headers are answered as usual and ignored; the
 * production profile neither advertises the feature nor puts `traceContext` on its events.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernelInProcess, type TestKernel } from "../../src/testing/index.js";
import { kernelDbs } from "../helpers/kernel-dbs.js";

const CAP = "/api/agents/runtime";
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const TP = `00-${TRACE}-00f067aa0ba902b7-01`;
type Headers = Record<string, string | string[]>;
type Ev = {
  id: string;
  type: string;
  attempts: number;
  traceContext?: unknown;
  payload: { content?: string };
};

/** A request over a socket with headers that may repeat (an array sends one header line per value). */
function send(
  url: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Headers = {},
) {
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON answers they expect.
  return new Promise<{ status: number; body: any; text: string }>((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${url}${path}`,
      {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${token}`,
          ...(data === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, text }),
        );
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

for (const [name, skip, makeDb] of kernelDbs("cap_trace")) {
  describe.skipIf(skip !== undefined)(`trace context on ${name}${skip ? ` (${skip})` : ""}`, () => {
    let k: TestKernel;
    let drop: () => Promise<void> = async () => {};
    const agent = (a: string, method: string, path: string, body?: unknown, headers?: Headers) =>
      send(k.url, method, `${CAP}${path}`, k.agents[a]!.token, body, headers);
    const human = (method: string, path: string, body?: unknown, headers?: Headers) =>
      send(k.url, method, path, k.human.token, body, headers);
    const poll = async (a: string, query = ""): Promise<Ev[]> =>
      (await agent(a, "GET", `/events?limit=50${query}`)).body.events;
    const ackAll = async (a: string, events: Ev[]) => {
      for (const e of events) await agent(a, "POST", `/events/${e.id}/ack`, {});
    };
    const say = async (content: string, headers?: Headers) => {
      const r = await human("POST", `/api/pods/${k.podId}/messages`, { content }, headers);
      expect(r.status).toBe(201);
      return r.body.id as string;
    };

    beforeAll(async () => {
      const d = await makeDb();
      drop = d.drop;
      k = await startKernelInProcess({ db: d.db, agents: ["alpha", "beta"], listeners: [], maxAttempts: 2 });
    });
    afterAll(async () => {
      await k?.stop();
      await drop();
    });

    it("advertises trace-context in /info", async () => {
      expect((await agent("alpha", "GET", "/info")).body.features).toContain("trace-context");
    });

    it("CAP-TRACE-2, -4, -6: a human's post gives every event it enqueues its context, tracestate verbatim", async () => {
      const tracestate = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
      await say("@alpha @beta look", { traceparent: TP, tracestate });
      for (const a of ["alpha", "beta"]) {
        const events = await poll(a);
        expect(events.map((e) => e.traceContext)).toEqual([{ traceparent: TP, tracestate }]);
        await ackAll(a, events);
      }
    });

    it("normalises a future version and carries no traceContext when the post sent none", async () => {
      await say("@alpha future", { traceparent: `cc-${TRACE}-00f067aa0ba902b7-01-more` });
      await say("@alpha plain");
      const events = await poll("alpha");
      expect(events.map((e) => [e.payload.content, e.traceContext])).toEqual([
        ["@alpha future", { traceparent: TP }],
        ["@alpha plain", undefined],
      ]);
      expect(events[1]).not.toHaveProperty("traceContext");
      await ackAll("alpha", events);
    });

    it("CAP-TRACE-1, -8: answers malformed, oversized and repeated headers as usual, ignores them and never stores baggage", async () => {
      const cases: Headers[] = [
        { traceparent: TP.toUpperCase() },
        { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` },
        { traceparent: `ff-${TRACE}-00f067aa0ba902b7-01` },
        { traceparent: `cc-${TRACE}-00f067aa0ba902b7-01-${"x".repeat(4000)}` },
        { traceparent: [TP, TP] },
        { traceparent: "garbage", tracestate: "a=1" },
      ];
      for (const headers of cases) {
        const r = await human("POST", `/api/pods/${k.podId}/messages`, { content: "@alpha bad" }, headers);
        expect([r.status, Object.keys(r.body).sort()]).toEqual([201, ["createdAt", "id"]]);
      }
      const bad = await agent("alpha", "GET", "/events?limit=50", undefined, { traceparent: "nope" });
      expect(bad.status).toBe(200);
      expect(bad.body.events).toHaveLength(cases.length);
      for (const e of bad.body.events as Ev[]) expect(e).not.toHaveProperty("traceContext");
      await ackAll("alpha", bad.body.events);

      await say("@alpha state", { traceparent: TP, tracestate: ["a=1", "B=2"], baggage: "user=secret-lily" });
      await say("@alpha long state", {
        traceparent: TP,
        tracestate: Array.from({ length: 9 }, (_, i) => `k${i}=${"v".repeat(60)}`).join(","),
      });
      const text = (await agent("alpha", "GET", "/events?limit=50")).text;
      expect(text).not.toContain("secret-lily");
      const [malformed, long] = JSON.parse(text).events as Ev[];
      expect(malformed!.traceContext).toEqual({ traceparent: TP });
      const kept = Array.from({ length: 8 }, (_, i) => `k${i}=${"v".repeat(60)}`).join(",");
      expect(long!.traceContext).toEqual({ traceparent: TP, tracestate: kept });
      await ackAll("alpha", [malformed!, long!]);
    });

    it("CAP-TRACE-7: an agent's post gives the events it causes the agent's context", async () => {
      const child = `00-${TRACE}-1111111111111111-01`;
      const r = await agent(
        "beta",
        "POST",
        `/pods/${k.podId}/messages`,
        { content: "@alpha over to you" },
        { traceparent: child, tracestate: "beta=1" },
      );
      expect(r.status).toBe(201);
      const events = await poll("alpha");
      expect(events.map((e) => e.traceContext)).toEqual([{ traceparent: child, tracestate: "beta=1" }]);
      await ackAll("alpha", events);
    });

    it("gives a decision answer's event the answer's context", async () => {
      const asked = await agent("alpha", "POST", "/decisions", {
        podId: k.podId,
        decisionClass: "prioritization",
        title: "Which?",
        question: "A or B?",
        options: ["A", "B"],
      });
      expect(asked.status).toBe(201);
      const answer = `00-${TRACE}-2222222222222222-00`;
      const r = await human(
        "POST",
        `/api/decisions/${asked.body.id}/answer`,
        { option: "A" },
        { traceparent: answer },
      );
      expect(r.status).toBe(201);
      const events = await poll("alpha");
      expect(events.map((e) => [e.type, e.traceContext])).toEqual([
        ["message.posted", { traceparent: answer }],
      ]);
      await ackAll("alpha", events);
    });

    it("CAP-TRACE-5: an injected event keeps its context on every delivery, replay, view and requeue", async () => {
      const injected = `00-${TRACE}-3333333333333333-01`;
      const ctx = { traceparent: injected, tracestate: "ops=1" };
      const r = await human(
        "POST",
        "/api/admin/events",
        { agentName: "alpha", podId: k.podId, type: "task.assigned", payload: { taskId: "t1", title: "x" } },
        { traceparent: injected, tracestate: "ops=1" },
      );
      expect(r.status).toBe(201);
      const id = r.body.id as string;
      const first = await poll("alpha", "&pollId=p-trace-1");
      expect(first.map((e) => e.traceContext)).toEqual([ctx]);
      expect((await poll("alpha", "&pollId=p-trace-1")).map((e) => [e.id, e.traceContext])).toEqual([
        [id, ctx],
      ]);
      expect(await k.state("alpha", id)).toMatchObject({ traceContext: ctx });
      // Two releases use up maxAttempts 2: a dead letter, then requeued by the operator.
      await agent("alpha", "POST", `/events/${id}/release`, { attempts: 1 });
      const second = await poll("alpha");
      expect(second.map((e) => [e.attempts, e.traceContext])).toEqual([[2, ctx]]);
      expect((await agent("alpha", "POST", `/events/${id}/release`, { attempts: 2 })).body.status).toBe(
        "failed",
      );
      const dead = await human("GET", `/api/admin/dead-letters?podId=${k.podId}`);
      expect(dead.body.events.find((e: { id: string }) => e.id === id).traceContext).toEqual(ctx);
      const requeued = await human("POST", `/api/admin/dead-letters/${id}/requeue`, undefined, {
        traceparent: `00-${"9".repeat(32)}-4444444444444444-01`,
      });
      expect(requeued.body.traceContext).toEqual(ctx);
      const third = await poll("alpha");
      expect(third.map((e) => [e.attempts, e.traceContext])).toEqual([[3, ctx]]);
      await ackAll("alpha", third);
    });
  });
}

describe("trace context under the production profile", () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await startKernelInProcess({ agents: ["alpha"], profile: "production" });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it("is not advertised and its events carry no traceContext", async () => {
    const token = k.agents.alpha!.token;
    const info = await send(k.url, "GET", `${CAP}/info`, token);
    expect(info.body.features).not.toContain("trace-context");
    const r = await send(
      k.url,
      "POST",
      `/api/pods/${k.podId}/messages`,
      k.human.token,
      { content: "@alpha hi" },
      { traceparent: TP },
    );
    expect(r.status).toBe(201);
    const events = (await send(k.url, "GET", `${CAP}/events`, token)).body.events;
    expect(events).toHaveLength(1);
    expect(events[0]).not.toHaveProperty("traceContext");
    expect(await k.state("alpha", events[0].id)).not.toHaveProperty("traceContext");
  });
});
