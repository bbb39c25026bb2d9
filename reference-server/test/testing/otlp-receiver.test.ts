/**
 * The testing kit's OTLP/HTTP receiver (src/testing/otlp-receiver.ts): OTLP/JSON exports decoded into
 * spans (hex or base64 ids, numeric or named kinds, gzip or not), protobuf counted but not decoded, other
 * paths refused, and a wait that fails saying what arrived.
 */
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../../src/testing/index.js";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";
const PARENT = "00f067aa0ba902b7";
const b64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");

const exportOf = (span: Record<string, unknown>, service = "cap-kernel") => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
      scopeSpans: [{ scope: { name: "t" }, spans: [span] }],
    },
  ],
});

let r: OtlpReceiver;
beforeEach(async () => {
  r = await startOtlpReceiver();
});
afterEach(async () => {
  await r.close();
});

const post = (body: Uint8Array | string, headers: Record<string, string>, path = "/v1/traces") =>
  fetch(`${r.url}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : new Uint8Array(body),
  });

describe("startOtlpReceiver", () => {
  it("listens on loopback and decodes an OTLP/JSON export", async () => {
    expect(new URL(r.url).hostname).toBe("127.0.0.1");
    const res = await post(
      JSON.stringify(
        exportOf({
          traceId: TRACE,
          spanId: SPAN,
          parentSpanId: PARENT,
          name: "send",
          kind: 4,
          attributes: [
            { key: "messaging.system", value: { stringValue: "cap" } },
            { key: "messaging.batch.message_count", value: { intValue: 2 } },
            { key: "ok", value: { boolValue: true } },
          ],
          links: [
            {
              traceId: TRACE,
              spanId: PARENT,
              attributes: [{ key: "messaging.message.id", value: { stringValue: "evt_1" } }],
            },
          ],
        }),
      ),
      { "content-type": "application/json" },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect(r.spans()).toEqual([
      {
        traceId: TRACE,
        spanId: SPAN,
        parentSpanId: PARENT,
        name: "send",
        kind: "producer",
        attributes: { "messaging.system": "cap", "messaging.batch.message_count": 2, ok: true },
        links: [{ traceId: TRACE, spanId: PARENT, attributes: { "messaging.message.id": "evt_1" } }],
        serviceName: "cap-kernel",
      },
    ]);
  });

  it("reads base64 ids, named kinds, a root span without parent, and a gzip body", async () => {
    const body = gzipSync(
      JSON.stringify(
        exportOf(
          {
            traceId: b64(TRACE),
            spanId: b64(SPAN),
            parentSpanId: "",
            name: "GET /x",
            kind: "SPAN_KIND_SERVER",
          },
          "k2",
        ),
      ),
    );
    expect(
      (await post(body, { "content-type": "application/json", "content-encoding": "gzip" })).status,
    ).toBe(200);
    const [span] = r.spans();
    expect(span).toMatchObject({
      traceId: TRACE,
      spanId: SPAN,
      name: "GET /x",
      kind: "server",
      serviceName: "k2",
    });
    expect(span).not.toHaveProperty("parentSpanId");
  });

  it("answers and counts a protobuf export without decoding it, and refuses other paths", async () => {
    const res = await post(Buffer.from([0x0a, 0x00]), { "content-type": "application/x-protobuf" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    expect(r.requests()).toEqual([{ path: "/v1/traces", contentType: "application/x-protobuf", bytes: 2 }]);
    expect(r.spans()).toEqual([]);
    expect((await post("{}", { "content-type": "application/json" }, "/v1/logs")).status).toBe(404);
    expect((await fetch(`${r.url}/v1/traces`)).status).toBe(404);
  });

  it("answers 400 to a body that is not JSON", async () => {
    expect((await post("{not json", { "content-type": "application/json" })).status).toBe(400);
  });

  it("waits until the spans arrive, and fails at the deadline listing what did", async () => {
    const waiting = r.waitForSpans((s) => s.some((x) => x.name === "late"), 5_000);
    await post(JSON.stringify(exportOf({ traceId: TRACE, spanId: SPAN, name: "late", kind: 1 })), {
      "content-type": "application/json",
    });
    expect((await waiting).map((s) => s.name)).toEqual(["late"]);
    await expect(r.waitForSpans((s) => s.length > 5, 100)).rejects.toThrow(/received 1: late 0af7/);
  });
});
