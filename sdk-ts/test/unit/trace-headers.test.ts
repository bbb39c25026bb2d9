/**
 * The W3C trace headers a request sends (CAP feature `trace-context`): which `traceparent` and
 * `tracestate` values go out as they are and which are left out, on every client method, on retries,
 * and through the traced view a handler gets as `ctx.client`.
 */
import { describe, expect, it } from "vitest";
import { type CapClient, tracedClient } from "../../src/client.js";
import { isTraceparent, validTraceContext } from "../../src/internal/client/trace-headers.js";
import type { TraceContext } from "../../src/types.js";
import { json, scriptedClient } from "../helpers/fake-fetch.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const TP = `00-${TRACE}-${PARENT}-01`;

describe("validTraceContext", () => {
  // given a trace context, want what a request sends (undefined: no trace headers at all).
  const cases: Array<[string, TraceContext | undefined, TraceContext | undefined]> = [
    ["nothing", undefined, undefined],
    ["a version-00 traceparent alone", { traceparent: TP }, { traceparent: TP }],
    [
      "an unsampled one",
      { traceparent: `00-${TRACE}-${PARENT}-00` },
      { traceparent: `00-${TRACE}-${PARENT}-00` },
    ],
    [
      "a tracestate beside it, verbatim (optional whitespace kept)",
      { traceparent: TP, tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7" },
      { traceparent: TP, tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7" },
    ],
    [
      "a higher version with a tail",
      { traceparent: `01-${TRACE}-${PARENT}-01-what-comes-next` },
      { traceparent: `01-${TRACE}-${PARENT}-01-what-comes-next` },
    ],
    ["version ff", { traceparent: `ff-${TRACE}-${PARENT}-01` }, undefined],
    ["version 00 with a tail", { traceparent: `${TP}-x` }, undefined],
    ["uppercase hex", { traceparent: TP.toUpperCase() }, undefined],
    ["an all-zero trace id", { traceparent: `00-${"0".repeat(32)}-${PARENT}-01` }, undefined],
    ["an all-zero parent id", { traceparent: `00-${TRACE}-${"0".repeat(16)}-01` }, undefined],
    ["a short trace id", { traceparent: `00-${TRACE.slice(1)}-${PARENT}-01` }, undefined],
    ["a line break (fetch would refuse the request)", { traceparent: `${TP}\n` }, undefined],
    [
      "256 characters",
      { traceparent: `01-${TRACE}-${PARENT}-01-${"a".repeat(200)}` },
      { traceparent: `01-${TRACE}-${PARENT}-01-${"a".repeat(200)}` },
    ],
    [
      "257 characters (more than a kernel reads)",
      { traceparent: `01-${TRACE}-${PARENT}-01-${"a".repeat(201)}` },
      undefined,
    ],
    ["not a string", { traceparent: 42 as unknown as string }, undefined],
    ["a tracestate without a valid traceparent", { traceparent: "nope", tracestate: "a=1" }, undefined],
    [
      "a tracestate with a control character",
      { traceparent: TP, tracestate: "a=1\r\nx: y" },
      { traceparent: TP },
    ],
    ["a tracestate of spaces", { traceparent: TP, tracestate: "   " }, { traceparent: TP }],
    ["a non-ASCII tracestate", { traceparent: TP, tracestate: "a=é" }, { traceparent: TP }],
  ];
  it.each(cases)("%s", (_, given, want) => {
    expect(validTraceContext(given)).toEqual(want);
    expect(isTraceparent(given?.traceparent)).toBe(want !== undefined);
  });
});

describe("CapClient trace headers", () => {
  const context = { traceparent: TP, tracestate: "vendor=opaque" };

  // given a call with a trace context, want its headers on the request.
  const calls: Array<
    [string, (c: CapClient, o: { traceContext: TraceContext }) => Promise<unknown>, Response]
  > = [
    ["ack", (c, o) => c.ack("e1", undefined, o), json(200, { ok: true })],
    ["renew", (c, o) => c.renew("e1", 1, o), json(200, { ok: true, leaseExpiresAt: "2026-11-29T18:00:30Z" })],
    ["release", (c, o) => c.release("e1", { attempts: 1 }, o), json(200, { ok: true, status: "pending" })],
    [
      "watchCancellation",
      (c, o) => c.watchCancellation("e1", { attempts: 1 }, o),
      json(200, { cancelRequested: false, leaseExpiresAt: "2026-11-29T18:00:30Z" }),
    ],
    [
      "postMessage",
      (c, o) => c.postMessage("p1", { content: "hi" }, o),
      json(201, { id: "m1", createdAt: "2026-11-29T18:00:00Z" }),
    ],
    ["getMemory", (c, o) => c.getMemory(o), json(200, { sections: {} })],
    ["putMemory", (c, o) => c.putMemory({ sections: {} }, o), json(200, { ok: true })],
    ["ackMany", (c, o) => c.ackMany([{ id: "e1" }], o), json(200, { results: [{ id: "e1", ok: true }] })],
  ];
  it.each(calls)("%s sends traceparent and tracestate", async (_, call, answer) => {
    const { c, requests } = scriptedClient([answer]);
    await call(c, { traceContext: context });
    expect(requests[0]!.headers.get("traceparent")).toBe(TP);
    expect(requests[0]!.headers.get("tracestate")).toBe("vendor=opaque");
    expect(requests[0]!.headers.get("baggage")).toBeNull();
  });

  it("sends no trace header without a context, or with an invalid one", async () => {
    const { c, requests } = scriptedClient([json(200, { ok: true })]);
    await c.ack("e1");
    await c.ack("e1", undefined, { traceContext: { traceparent: "00-nope", tracestate: "a=1" } });
    for (const r of requests) {
      expect(r.headers.get("traceparent")).toBeNull();
      expect(r.headers.get("tracestate")).toBeNull();
    }
  });

  it("sends the same headers on every retry of a call", async () => {
    const { c, requests } = scriptedClient([json(503, { code: "x", message: "x" }), json(200, { ok: true })]);
    await c.ack("e1", undefined, { traceContext: context });
    expect(requests.map((r) => r.headers.get("traceparent"))).toEqual([TP, TP]);
  });

  it("gives a traced view's calls the context of the moment, a call's own first", async () => {
    const { c, requests } = scriptedClient([json(200, { ok: true })]);
    let now: TraceContext | undefined = context;
    const view = tracedClient(c, () => now);
    expect(view).not.toBe(c);
    await view.ack("e1");
    now = { traceparent: `00-${TRACE}-${"1".repeat(16)}-01` };
    await view.ack("e1");
    await view.ack("e1", undefined, { traceContext: { traceparent: `00-${TRACE}-${"2".repeat(16)}-01` } });
    now = undefined;
    await view.ack("e1");
    await c.ack("e1");
    expect(requests.map((r) => r.headers.get("traceparent"))).toEqual([
      TP,
      `00-${TRACE}-${"1".repeat(16)}-01`,
      `00-${TRACE}-${"2".repeat(16)}-01`,
      null,
      null,
    ]);
    expect(view.fingerprint).toBe(c.fingerprint);
    expect(view.baseUrl).toBe(c.baseUrl);
  });

  it("leaves a stand-in for the client (a test's fake) as it is", () => {
    const fake = { ack: async () => ({ ok: true }) } as unknown as CapClient;
    expect(tracedClient(fake, () => context)).toBe(fake);
  });
});
