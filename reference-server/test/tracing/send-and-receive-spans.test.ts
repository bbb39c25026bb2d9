/**
 * The `send` span a tracing kernel records around an enqueue (through services/trace-context.ts's hook)
 * and the context it hands the events; the `receive` span's links to the events a poll claimed.
 */
import { context, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveredEvent, Kernel } from "../../src/kernel.js";
import { enqueueTraceContext, type TraceContext } from "../../src/services/trace-context.js";
import { linksOf } from "../../src/tracing/receive-span.js";
import { PARENT_ID, startInMemoryTracing, TRACE_ID, TRACEPARENT, type Traced } from "./traced-app.js";

let t: Traced;
beforeEach(async () => {
  t = await startInMemoryTracing();
});
afterEach(async () => {
  await t.stop();
});

/** Runs an enqueue through the hook and returns the context its events were given. */
function enqueued(received: TraceContext | undefined): TraceContext | undefined {
  let given: TraceContext | undefined;
  enqueueTraceContext(received, (ctx) => {
    given = ctx;
  });
  return given;
}

describe("the send span", () => {
  it("is a producer child of the received context, and the events carry its traceparent and the tracestate", () => {
    const given = enqueued({ traceparent: TRACEPARENT, tracestate: "vendor=abc" });
    const send = t.named("send")[0]!;
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.spanContext().traceId).toBe(TRACE_ID);
    expect(send.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(given).toEqual({
      traceparent: `00-${TRACE_ID}-${send.spanContext().spanId}-01`,
      tracestate: "vendor=abc",
    });
    expect(send.attributes).toMatchObject({
      "messaging.system": "cap",
      "messaging.operation.type": "send",
      "messaging.batch.message_count": 0,
    });
  });

  it("is a child of the active span (the request's) when there is one", () => {
    const request = trace.wrapSpanContext({ traceId: TRACE_ID, spanId: "c".repeat(16), traceFlags: 1 });
    const given = context.with(trace.setSpan(ROOT_CONTEXT, request), () =>
      enqueued({ traceparent: TRACEPARENT }),
    );
    const send = t.named("send")[0]!;
    expect(send.parentSpanContext?.spanId).toBe("c".repeat(16));
    expect(given?.traceparent).toBe(`00-${TRACE_ID}-${send.spanContext().spanId}-01`);
  });

  it("starts a new root when the cause sent no context, and the events name it", () => {
    const given = enqueued(undefined);
    const send = t.named("send")[0]!;
    expect(send.parentSpanContext).toBeUndefined();
    expect(given?.traceparent).toBe(`00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`);
  });

  it("hands an unsampled cause's context on verbatim, naming no span it did not export", () => {
    const unsampled = { traceparent: `00-${TRACE_ID}-${PARENT_ID}-00`, tracestate: "k=v" };
    expect(enqueued(unsampled)).toEqual(unsampled);
    expect(t.named("send")).toEqual([]);
  });

  it("ends with the enqueue's promise, marked as failed when it rejects, and passes the rejection on", async () => {
    const failing = enqueueTraceContext({ traceparent: TRACEPARENT }, async () => {
      throw new Error("disk full");
    });
    expect(t.named("send")).toEqual([]);
    await expect(failing).rejects.toThrow("disk full");
    expect(t.named("send")[0]!.status).toEqual({ code: 2, message: "disk full" });
  });

  it("is gone once tracing shuts down: the events carry the cause's context again", async () => {
    await t.stop();
    expect(enqueued({ traceparent: TRACEPARENT })).toEqual({ traceparent: TRACEPARENT });
  });
});

const delivered = (id: string, traceparent: string | null, tracestate: string | null = null) =>
  ({ id, traceparent, tracestate }) as unknown as DeliveredEvent;

describe("the receive span", () => {
  it("links to the context of each claimed event that has one", () => {
    const other = `00-${"1".repeat(32)}-${"2".repeat(16)}-00`;
    const links = linksOf([
      delivered("evt_1", TRACEPARENT, "k=v"),
      delivered("evt_2", null),
      delivered("evt_3", other),
    ]);
    expect(
      links.map((l) => [
        l.context.traceId,
        l.context.spanId,
        l.context.traceFlags,
        l.context.traceState?.serialize(),
        l.attributes,
      ]),
    ).toEqual([
      [TRACE_ID, PARENT_ID, 1, "k=v", { "messaging.message.id": "evt_1" }],
      ["1".repeat(32), "2".repeat(16), 0, undefined, { "messaging.message.id": "evt_3" }],
    ]);
  });

  it("wraps a poll: one consumer span per poll with the links and the count, the answer unchanged", async () => {
    const answer = [delivered("evt_1", TRACEPARENT)];
    const events = { poll: async () => answer } as unknown as Kernel["events"];
    const wrapped = t.tracing.instrument.events(events);
    const caller = { agentName: "echo" } as Parameters<Kernel["events"]["poll"]>[0];
    expect(await wrapped.poll(caller, { limit: 5, waitSeconds: 0 })).toBe(answer);
    const receive = t.named("receive")[0]!;
    expect(receive.kind).toBe(SpanKind.CONSUMER);
    expect(receive.attributes["messaging.batch.message_count"]).toBe(1);
    expect(receive.links.map((l) => l.context.spanId)).toEqual([PARENT_ID]);
  });
});
