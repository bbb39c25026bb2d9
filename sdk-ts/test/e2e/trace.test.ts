/**
 * One human message, one connected trace across the reference kernel and a TypeScript driver, both
 * exporting OTLP/JSON to one loopback receiver (the kernel by its `OTEL_*` variables, the driver by an
 * OTLP http/json exporter): the post's server span, child of the human's `traceparent` → the kernel's
 * `send` span, which the event's `traceContext` names → the driver's `invoke_agent` span, its child →
 * the reply post's server span, child of the driver's span; one trace id throughout, and the batch ack,
 * which settles events of several traces, outside it. Then the same across two kernel replicas on one
 * PostgreSQL database: posted on replica A, polled, handled and answered through replica B.
 */
import {
  freshPgSchema,
  kernelMissing,
  type OtlpReceiver,
  pgSkipReason,
  pgTestUrl,
  type ReceivedSpan,
  startKernel,
  startOtlpReceiver,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CapClient } from "../../src/client.js";
import { startDriver, stopAllDrivers } from "../helpers/drivers.js";
import { type RecordedSpans, recordSpans } from "../helpers/otel.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";

/** OTLP/JSON to `receiver`, batches sent every 50 ms. */
const tracingEnv = (receiver: OtlpReceiver, instance: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "50",
  OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instance}`,
});

/** Posts `content` as the kernel's human, under the human's own span `PARENT_ID` of trace `traceId`. */
async function postAsHuman(k: TestKernel, content: string, traceId: string): Promise<string> {
  const res = await fetch(`${k.url}/api/pods/${k.podId}/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${k.human.token}`,
      "content-type": "application/json",
      traceparent: `00-${traceId}-${PARENT_ID}-01`,
    },
    body: JSON.stringify({ content }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const REPLY_ROUTE = "POST /api/agents/runtime/pods/:podId/messages";

/**
 * Waits for the story of one message in trace `traceId` and checks it is connected: the human's post,
 * the kernel's send span under it, the driver's span under the send span, the reply's post under the
 * driver's span.
 */
async function connectedStory(receiver: OtlpReceiver, traceId: string) {
  const inTrace = (s: ReceivedSpan[]) => s.filter((x) => x.traceId === traceId);
  const driverOf = (s: ReceivedSpan[]) => inTrace(s).find((x) => x.name === "invoke_agent echo");
  const spans = inTrace(
    await receiver.waitForSpans((s) => {
      const driver = driverOf(s);
      return !!driver && inTrace(s).some((x) => x.name === REPLY_ROUTE && x.parentSpanId === driver.spanId);
    }),
  );
  const post = spans.find((s) => s.name === "POST /api/pods/:podId/messages")!;
  expect(post).toMatchObject({ kind: "server", parentSpanId: PARENT_ID, serviceName: "cap-kernel" });
  const send = spans.find((s) => s.name === "send")!;
  expect(send.kind).toBe("producer");
  const ancestors = (s: ReceivedSpan): string[] => {
    const parent = spans.find((x) => x.spanId === s.parentSpanId);
    return parent ? [parent.spanId, ...ancestors(parent)] : [];
  };
  expect(ancestors(send)).toContain(post.spanId);
  const driver = driverOf(spans)!;
  expect(driver).toMatchObject({ kind: "consumer", parentSpanId: send.spanId, serviceName: "echo-driver" });
  expect(driver.attributes).toMatchObject({
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": "echo",
    "messaging.system": "cap",
    "messaging.operation.type": "process",
    "cap.ack.outcome": "posted",
  });
  const reply = spans.filter((s) => s.name === REPLY_ROUTE);
  expect(reply).toEqual([expect.objectContaining({ kind: "server", parentSpanId: driver.spanId })]);
  expect(spans.some((s) => s.name === "POST /api/agents/runtime/events/ack")).toBe(false);
  return { spans, send, driver };
}

let receiver: OtlpReceiver;
let otel: RecordedSpans;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  otel = recordSpans({
    serviceName: "echo-driver",
    exporters: [new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` })],
  });
});
afterEach(stopAllDrivers);
afterAll(async () => {
  await otel?.stop();
  await receiver?.close();
});

const echo = {
  agentName: "echo",
  handle: async (event: { payload: Record<string, unknown> }, ctx: { reply(c: string): Promise<unknown> }) =>
    void (await ctx.reply(`echo: ${event.payload.content}`)),
};

describe.skipIf(kernelMissing())("one message, one trace: kernel and TypeScript driver", () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startKernel({
      leaseSeconds: 2,
      agents: ["echo"],
      listeners: [],
      env: tracingEnv(receiver, "k"),
    });
  });
  afterAll(() => kernel?.stop());

  it("connects the human's post, the kernel's send, the driver's span and the reply", async () => {
    const d = startDriver(new CapClient({ baseUrl: kernel.url, token: kernel.agents.echo!.token }), echo);
    await postAsHuman(kernel, "@echo follow me", TRACE_ID);
    const { driver } = await connectedStory(receiver, TRACE_ID);
    await d.stop();
    expect(otel.named("invoke_agent echo").map((s) => s.spanContext().spanId)).toContain(driver.spanId);
  });
});

describe.skipIf(!pgTestUrl || kernelMissing())(
  `one message, one trace across two PostgreSQL replicas${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
  () => {
    let a: TestKernel;
    let b: TestKernel;
    let drop = async () => {};
    beforeAll(async () => {
      const schema = await freshPgSchema("cap_sdk_trace_replicas");
      drop = schema.drop;
      a = await startKernel({
        db: schema.url,
        leaseSeconds: 2,
        agents: ["echo"],
        listeners: [],
        env: tracingEnv(receiver, "a"),
      });
      b = await startKernel({
        db: schema.url,
        leaseSeconds: 2,
        provision: false,
        env: tracingEnv(receiver, "b"),
      });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await drop();
    });

    it("connects a post on replica A to the driver polling replica B and its reply through B", async () => {
      const traceId = "5bf92f3577b34da6a3ce929d0e0e4738";
      const d = startDriver(new CapClient({ baseUrl: b.url, token: a.agents.echo!.token }), echo);
      await postAsHuman(a, "@echo across replicas", traceId);
      await connectedStory(receiver, traceId);
      await d.stop();
    });
  },
);
