/**
 * runDriver's OpenTelemetry span against the real reference kernel over real sockets, with an SDK tracer
 * provider exporting to memory and a proxy reading the wire: the `invoke_agent` span of a human's
 * traced message is the child of the event's `traceparent` (CAP-TRACE-11), and every request made for
 * the event — memory, reply, watch, single ack — carries the span's id in the event's trace, with the
 * event's `tracestate` as it came.
 */
import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Event, TraceContext } from "../../src/types.js";
import { clientFor, hideFeatures, startDriver, stopAllDrivers } from "../helpers/drivers.js";
import { type RecordedSpans, recordSpans, traceparentOf } from "../helpers/otel.js";
import { postTraced, recordWire, type Wire } from "../helpers/trace-wire.js";

let kernel: TestKernel;
let wire: Wire;
let otel: RecordedSpans;
beforeAll(async () => {
  otel = recordSpans();
  kernel = await startKernel({ leaseSeconds: 2, agents: ["echo"], listeners: [] });
  wire = await recordWire(kernel);
});
afterEach(stopAllDrivers);
afterAll(async () => {
  await wire?.proxy.close();
  await kernel?.stop();
  await otel?.stop();
});

const sent: TraceContext = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7",
};

describe("runDriver with an OpenTelemetry SDK", () => {
  it("handles the event in a child span of its traceparent, and its requests carry that span", async () => {
    const token = kernel.agents.echo!.token;
    const client = hideFeatures(clientFor(kernel, "echo", { baseUrl: wire.proxy.url }), "batch-ack");
    let event: Event | undefined;
    const d = startDriver(client, {
      agentName: "echo",
      handle: async (e, ctx) => {
        event = e;
        await ctx.client.putMemory({ sections: { long_term: { content: "seen" } } });
        await eventually(
          () => wire.sent(token, "GET", `/events/${e.id}/cancellation`).length > 0,
          "this turn is watched",
          { timeoutMs: 10_000 },
        );
        await ctx.reply(`echo: ${e.payload.content}`);
      },
    });
    await postTraced(kernel, "@echo hi", sent);
    await eventually(() => otel.named("invoke_agent echo").length === 1, "the turn's span ended");
    await eventually(() => d.rec.acks.length === 1, "the event is acked");
    await d.stop();

    const span = otel.named("invoke_agent echo")[0]!;
    expect(event!.traceContext).toEqual(sent);
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(span.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(span.attributes).toMatchObject({
      "gen_ai.conversation.id": kernel.podId,
      "messaging.message.id": event!.id,
      "cap.ack.outcome": "posted",
    });
    const own = { traceparent: traceparentOf(span), tracestate: sent.tracestate };
    const requests = [
      ...wire.sent(token, "PUT", "/memory"),
      ...wire.sent(token, "GET", `/events/${event!.id}/cancellation`),
      ...wire.sent(token, "POST", `/pods/${kernel.podId}/messages`),
      ...wire.sent(token, "POST", `/events/${event!.id}/ack`),
    ];
    expect(requests.map((r) => r.path.split("/").at(-1))).toEqual(
      expect.arrayContaining(["memory", "cancellation", "messages", "ack"]),
    );
    for (const r of requests) expect({ traceparent: r.traceparent, tracestate: r.tracestate }).toEqual(own);
  });
});
