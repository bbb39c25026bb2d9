/**
 * One trace across two kernel replicas on one PostgreSQL database: a human's post on replica A, the
 * driver's poll and ack on replica B, both exporting to one OTLP receiver. The event carries the context
 * of A's `send` span through the database, and B's `receive` span links to it: one trace id throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
} from "../../src/testing/index.js";

const TRACE_ID = "5bf92f3577b34da6a3ce929d0e0e4737";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b8-01`;

describe.skipIf(!pgTestUrl || kernelMissing())(
  `two tracing replicas${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
  () => {
    let receiver: OtlpReceiver;
    let a: TestKernel;
    let b: TestKernel;
    let drop = async () => {};

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      const schema = await freshPgSchema("cap_trace_replicas");
      drop = schema.drop;
      const env = (name: string) => ({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "50",
        OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${name}`,
      });
      a = await startKernel({ db: schema.url, agents: ["echo"], env: env("a") });
      b = await startKernel({ db: schema.url, provision: false, env: env("b") });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await receiver?.close();
      await drop();
    });

    it("exports a post on one replica and the poll and ack on the other as one trace", async () => {
      const posted = await fetch(`${a.url}/api/pods/${a.podId}/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${a.human.token}`,
          "content-type": "application/json",
          traceparent: TRACEPARENT,
        },
        body: JSON.stringify({ content: "across replicas @echo" }),
      });
      expect(posted.status).toBe(201);
      const token = a.agents.echo!.token;
      const auth = { authorization: `Bearer ${token}` };
      const polled = (await (
        await fetch(`${b.url}/api/agents/runtime/events?limit=10`, { headers: auth })
      ).json()) as {
        events: { id: string; traceContext?: { traceparent: string } }[];
      };
      const event = polled.events[0]!;
      expect(event.traceContext?.traceparent.slice(3, 35)).toBe(TRACE_ID);
      const acked = await fetch(`${b.url}/api/agents/runtime/events/${event.id}/ack`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/json",
          traceparent: event.traceContext!.traceparent,
        },
        body: "{}",
      });
      expect(acked.status).toBe(200);

      const has = (s: ReceivedSpan[], name: string) =>
        s.some((x) => x.name === name && x.traceId === TRACE_ID);
      const spans = await receiver.waitForSpans((s) => has(s, "send") && has(s, "ack"));
      const send = spans.find((s) => s.name === "send" && s.traceId === TRACE_ID)!;
      expect(event.traceContext!.traceparent).toBe(`00-${TRACE_ID}-${send.spanId}-01`);
      // The poll carried no traceparent: its own trace, linked to A's send span.
      const receive = spans.find(
        (s) => s.name === "receive" && s.links.some((l) => l.spanId === send.spanId),
      )!;
      expect(receive.links).toEqual([
        { traceId: TRACE_ID, spanId: send.spanId, attributes: { "messaging.message.id": event.id } },
      ]);
      const ack = spans.find((s) => s.name === "ack" && s.traceId === TRACE_ID)!;
      expect(ack.attributes["db.system.name"]).toBe("postgresql");
      const ackRoute = spans.find((s) => s.spanId === ack.parentSpanId)!;
      expect(ackRoute.parentSpanId).toBe(send.spanId);
    });
  },
);
