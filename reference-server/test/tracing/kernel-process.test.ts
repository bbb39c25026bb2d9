/**
 * A real `cap-kernel serve` process exporting to the testing kit's OTLP receiver: one human message's
 * story — the post's server span under the sender's traceparent, the `send` span the event's traceContext
 * names, the poll's `receive` span linking to it, the ack's spans — arrives as one trace; malformed and
 * oversized headers start new roots without changing an answer; spans are flushed on a graceful stop; the
 * default protocol is protobuf; and a kernel with tracing off sends nothing and says nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  kernelMissing,
  type OtlpReceiver,
  type ReceivedSpan,
  startKernel,
  startOtlpReceiver,
  type TestKernel,
} from "../../src/testing/index.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

/** OTLP/JSON to `receiver`, batches sent every 50 ms. */
const tracingEnv = (receiver: OtlpReceiver, extra: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "50",
  ...extra,
});

async function post(k: TestKernel, content: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${k.url}/api/pods/${k.podId}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${k.human.token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ content }),
  });
  return { status: res.status, body: (await res.json()) as { id: string } };
}

type Polled = { id: string; traceContext?: { traceparent: string; tracestate?: string } };
const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe.skipIf(kernelMissing())("a tracing kernel process", () => {
  let receiver: OtlpReceiver;
  let k: TestKernel;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    k = await startKernel({ agents: ["echo"], env: tracingEnv(receiver) });
  });
  afterAll(async () => {
    await k?.stop();
    await receiver?.close();
  });

  it("says at start that tracing is on and where it exports", () => {
    expect(k.output()).toContain(
      `cap-kernel: tracing on: spans of service cap-kernel to OTLP http/json to ${receiver.url}/v1/traces`,
    );
  });

  it("exports one human message's post, send, poll and ack as one trace", async () => {
    const posted = await post(k, "hello @echo", { traceparent: TRACEPARENT, tracestate: "vendor=1" });
    expect(posted.status).toBe(201);
    const polled = await k.cap<{ events: Polled[] }>(
      k.agents.echo!.token,
      "GET",
      "/events?limit=10",
      undefined,
      {
        traceparent: `00-${TRACE_ID}-${"1".repeat(16)}-01`,
      },
    );
    const event = polled.body.events.find((e) => e.id !== undefined)!;
    const acked = await k.cap(
      k.agents.echo!.token,
      "POST",
      `/events/${event.id}/ack`,
      {},
      {
        traceparent: `00-${TRACE_ID}-${"2".repeat(16)}-01`,
      },
    );
    expect(acked.status).toBe(200);

    const spans = await receiver.waitForSpans((s) =>
      ["send", "receive", "ack"].every((n) => byName(s, n).some((x) => x.traceId === TRACE_ID)),
    );
    const inTrace = spans.filter((s) => s.traceId === TRACE_ID);
    const postSpan = inTrace.find((s) => s.name === "POST /api/pods/:podId/messages")!;
    expect(postSpan).toMatchObject({ kind: "server", parentSpanId: PARENT_ID, serviceName: "cap-kernel" });
    const send = byName(inTrace, "send")[0]!;
    expect(send.kind).toBe("producer");
    expect(send.attributes).toMatchObject({
      "messaging.system": "cap",
      "messaging.operation.type": "send",
      "messaging.batch.message_count": 1,
    });
    // The send span is the post's descendant (through the transaction's commit span).
    const ancestors = (s: ReceivedSpan): string[] => {
      const parent = inTrace.find((x) => x.spanId === s.parentSpanId);
      return parent ? [parent.spanId, ...ancestors(parent)] : [];
    };
    expect(ancestors(send)).toContain(postSpan.spanId);
    // The event names the send span, with the sender's tracestate.
    expect(event.traceContext).toEqual({
      traceparent: `00-${TRACE_ID}-${send.spanId}-01`,
      tracestate: "vendor=1",
    });
    const receive = byName(inTrace, "receive")[0]!;
    expect(receive.kind).toBe("consumer");
    expect(receive.links).toEqual([
      { traceId: TRACE_ID, spanId: send.spanId, attributes: { "messaging.message.id": event.id } },
    ]);
    expect(receive.parentSpanId).toBe(
      inTrace.find((s) => s.name === "GET /api/agents/runtime/events")!.spanId,
    );
    const claim = byName(inTrace, "claim")[0]!;
    expect(claim.parentSpanId).toBe(receive.spanId);
    const ack = byName(inTrace, "ack")[0]!;
    expect(ack.parentSpanId).toBe(
      inTrace.find((s) => s.name === "POST /api/agents/runtime/events/:id/ack")!.spanId,
    );
    expect(new Set(inTrace.map((s) => s.serviceName))).toEqual(new Set(["cap-kernel"]));
  });

  it.each<[string, Record<string, string>]>([
    ["malformed", { traceparent: "00-xyz-abc-01", tracestate: "=bad" }],
    ["oversized", { traceparent: `01-${"a".repeat(32)}-${"b".repeat(16)}-01-${"c".repeat(400)}` }],
    [
      "a huge tracestate",
      { traceparent: `00-${"d".repeat(32)}-${"e".repeat(16)}-01`, tracestate: `k=${"v".repeat(8000)}` },
    ],
  ])(
    "answers a post with a %s trace header as without it, starting a new root when the traceparent is invalid",
    async (name, headers) => {
      const before = receiver.spans().length;
      const posted = await post(k, `${name} headers`, headers);
      expect(posted.status).toBe(201);
      const isPost = (x: ReceivedSpan) => x.name === "POST /api/pods/:podId/messages";
      const spans = await receiver.waitForSpans((s) => s.slice(before).some(isPost));
      const span = spans.slice(before).find(isPost)!;
      if (name === "a huge tracestate") expect(span.parentSpanId).toBe("e".repeat(16));
      else expect(span.parentSpanId).toBeUndefined();
    },
  );
});

describe.skipIf(kernelMissing())("a kernel's export", () => {
  let receiver: OtlpReceiver;
  let k: TestKernel | undefined;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await k?.stop();
    k = undefined;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("posts OTLP protobuf by default", async () => {
    k = await startKernel({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50" },
    });
    expect(k.output()).toContain("OTLP http/protobuf");
    await fetch(`${k.url}/api/pods/${k.podId}`, { headers: { authorization: `Bearer ${k.human.token}` } });
    await receiver.waitForSpans(() =>
      receiver.requests().some((r) => r.contentType === "application/x-protobuf"),
    );
    expect(receiver.requests().every((r) => r.path === "/v1/traces")).toBe(true);
  });

  it("flushes the spans it holds when it stops gracefully", async () => {
    const before = receiver.spans().length;
    // Batches would wait ten minutes: only the shutdown's flush can send these.
    k = await startKernel({ env: tracingEnv(receiver, { OTEL_BSP_SCHEDULE_DELAY: "600000" }) });
    await fetch(`${k.url}/api/pods/${k.podId}`, { headers: { authorization: `Bearer ${k.human.token}` } });
    expect(receiver.spans().length).toBe(before);
    await k.stop();
    k = undefined;
    const spans = await receiver.waitForSpans((s) =>
      s.slice(before).some((x) => x.name === "GET /api/pods/:podId"),
    );
    expect(spans.length).toBeGreaterThan(before);
  });

  it.each<[string, Record<string, string>]>([
    ["no OTEL_ variable", {}],
    ["OTEL_SDK_DISABLED=true", { OTEL_SDK_DISABLED: "true" }],
    ["OTEL_TRACES_EXPORTER=none", { OTEL_TRACES_EXPORTER: "none" }],
  ])("with %s, traces nothing and says nothing of tracing", async (_name, env) => {
    const requests = receiver.requests().length;
    const full = Object.keys(env).length === 0 ? {} : tracingEnv(receiver, env);
    k = await startKernel({ agents: ["echo"], env: full });
    const posted = await post(k, "hello @echo", { traceparent: TRACEPARENT });
    expect(posted.status).toBe(201);
    const polled = await k.cap<{ events: Polled[] }>(k.agents.echo!.token, "GET", "/events?limit=10");
    // Tracing off: the event carries the sender's context verbatim.
    expect(polled.body.events[0]?.traceContext).toEqual({ traceparent: TRACEPARENT });
    await k.stop();
    expect(k.output()).not.toMatch(/tracing/);
    k = undefined;
    expect(receiver.requests().length).toBe(requests);
  });
});
