/**
 * runDriver's OpenTelemetry spans, on the fake kernel and virtual time, with an SDK tracer provider
 * exporting to memory: one CONSUMER span `invoke_agent {agentName}` per event, child of the event's
 * `traceparent` (a new root without one), with the GenAI and messaging attributes; active while the
 * handler runs, so `ctx.traceContext`, `ctx.reply` and the runtime's renew and ack carry its id (and a
 * span the handler makes active, its own), with the event's `tracestate` as it came; ended with the
 * turn's outcome (acked with its outcome, failed, cancelled, a duplicate, a lost lease).
 */
import { eventually } from "@commonly/cap-kernel/testing";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MemoryHandledStore } from "../../src/handled-store.js";
import type { TraceContext } from "../../src/types.js";
import { setup, time } from "../helpers/driver-setup.js";
import { httpError } from "../helpers/fake-kernel.js";
import { type RecordedSpans, recordSpans, traceparentOf } from "../helpers/otel.js";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";
const received: TraceContext = {
  traceparent: `00-${TRACE}-${PARENT}-01`,
  tracestate: "congo=t61rcWkgMzE, rojo=1",
};

let otel: RecordedSpans;
beforeAll(() => {
  otel = recordSpans();
});
beforeEach(() => otel.exporter.reset());
afterAll(() => otel.stop());

/** The one span of the turn, once ended. */
async function turnSpan(name = "invoke_agent echo"): Promise<ReadableSpan> {
  await eventually(() => otel.named(name).length > 0, `a ${name} span ended`);
  return otel.named(name)[0]!;
}

describe("runDriver spans", () => {
  it("records a CONSUMER span invoke_agent {agentName}, child of the event's traceparent, with the GenAI and messaging attributes", async () => {
    const t = setup({ agentName: "echo" });
    const id = t.kernel.enqueue("mention.received", {}, { traceContext: received, podId: "pod_9" });
    t.start({ handle: () => undefined });
    const span = await turnSpan();
    await t.finish();
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(PARENT);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.spanContext().traceState?.serialize()).toBe("congo=t61rcWkgMzE,rojo=1");
    expect(span.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "echo",
      "gen_ai.conversation.id": "pod_9",
      "messaging.system": "cap",
      "messaging.operation.type": "process",
      "messaging.message.id": id,
      "messaging.destination.name": "echo",
      "cap.event.type": "mention.received",
      "cap.event.attempts": 1,
      "cap.ack.outcome": "acknowledged",
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("makes the span active in the handler, and its requests carry its id (or the handler's own span's)", async () => {
    const t = setup({ agentName: "echo" });
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    const id = t.kernel.enqueue("mention.received", { messageId: "m" }, { traceContext: received });
    const inside: { active?: string; ctx?: TraceContext; tool?: string } = {};
    t.start({
      handle: async (_event, ctx) => {
        inside.active = trace.getActiveSpan()?.spanContext().spanId;
        inside.ctx = ctx.traceContext;
        await time.sleep(20_000); // a renewal comes at half of the 30 s lease
        await ctx.reply("from the turn");
        await trace.getTracer("handler").startActiveSpan("execute_tool", async (tool) => {
          inside.tool = tool.spanContext().spanId;
          await ctx.reply("from a tool");
          tool.end();
        });
      },
    });
    const span = await turnSpan();
    await t.finish();
    const own = { traceparent: traceparentOf(span), tracestate: received.tracestate };
    expect(inside.active).toBe(span.spanContext().spanId);
    expect(inside.ctx).toEqual(own);
    const sent = t.kernel.traced.map((r) => [r.op, r.id, r.traceContext]);
    expect(sent).toEqual([
      ["renew", id, own],
      ["post", "pod_1", own],
      ["post", "pod_1", { traceparent: `00-${TRACE}-${inside.tool}-01`, tracestate: received.tracestate }],
      ["ack", id, own],
    ]);
    expect(otel.named("execute_tool")[0]!.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it("starts a new trace for an event without a context, named invoke_agent without an agent name", async () => {
    const t = setup();
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    const id = t.kernel.enqueue("task.assigned", {});
    t.start({ handle: () => undefined });
    const span = await turnSpan("invoke_agent");
    await t.finish();
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes["gen_ai.agent.name"]).toBeUndefined();
    expect(t.kernel.traced).toEqual([{ op: "ack", id, traceContext: { traceparent: traceparentOf(span) } }]);
  });

  it("ends a failed turn's span with an error, and the event's release carries it", async () => {
    const t = setup({ agentName: "echo" });
    const id = t.kernel.enqueue("task.assigned", {}, { traceContext: received });
    t.start({
      handle: (event) => {
        if (event.attempts === 1) throw new TypeError("no such tool");
      },
    });
    await eventually(() => otel.named("invoke_agent echo").length === 2, "both deliveries' spans ended");
    await t.finish();
    const [failed, done] = otel.named("invoke_agent echo");
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: "no such tool" });
    expect(failed!.attributes["error.type"]).toBe("runtime");
    expect(failed!.events.map((e) => e.name)).toEqual(["exception"]);
    expect(t.kernel.traced.find((r) => r.op === "release")).toEqual({
      op: "release",
      id,
      traceContext: { traceparent: traceparentOf(failed!), tracestate: received.tracestate },
    });
    expect(done!.attributes["cap.event.attempts"]).toBe(2);
    expect(done!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("ends a cancelled turn's span with the ack outcome and the cancel's reason, not an error", async () => {
    const t = setup({ agentName: "echo" });
    t.kernel.features.push("cancel");
    const id = t.kernel.enqueue("task.assigned", {}, { traceContext: received });
    // Held until the cancel aborts it: virtual time would run a sleep out before the test cancels.
    const aborted = (signal: AbortSignal) => new Promise((r) => signal.addEventListener("abort", r));
    t.start({ handle: async (_event, ctx) => void (await aborted(ctx.signal)) });
    await eventually(() => t.kernel.openWatches === 1, "the running handler is watched");
    t.kernel.cancel(id, "superseded");
    const span = await turnSpan();
    await t.finish();
    expect(span.attributes).toMatchObject({
      "cap.ack.outcome": "cancelled",
      "cap.cancel.reason": "superseded",
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks a duplicate delivery, re-acked without its handler", async () => {
    const store = new MemoryHandledStore();
    const t = setup({ agentName: "echo", store });
    const id = t.kernel.enqueue("task.assigned", {}, { traceContext: received });
    await store.set(id, { outcome: "no_action" });
    t.start({ handle: () => undefined });
    const span = await turnSpan();
    await t.finish();
    expect(span.attributes).toMatchObject({ "cap.ack.outcome": "no_action", "cap.ack.duplicate": true });
  });

  it("ends the span of a turn whose lease was lost with an error", async () => {
    const t = setup({ agentName: "echo" });
    t.kernel.enqueue("task.assigned", {}, { traceContext: received });
    t.kernel.renewErrors.push(httpError(409, "lease_lost"));
    t.start({ handle: async (_event, ctx) => void (await time.sleep(60_000, ctx.signal)) });
    const span = await turnSpan();
    await t.finish();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "lease_lost" });
    expect(span.attributes["error.type"]).toBe("lease_lost");
    expect(span.attributes["cap.ack.outcome"]).toBeUndefined();
  });
});
