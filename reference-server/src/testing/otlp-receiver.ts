/**
 * A small OTLP/HTTP trace receiver on loopback for tests: point a kernel (or a driver) at it with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=<url>` and `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json`, then read the
 * spans it exported. `POST /v1/traces` with a JSON body (OTLP/JSON: hex or base64 ids, gzip or not) is
 * decoded into ReceivedSpan; a protobuf body is answered and counted in `requests()` but not decoded (no
 * protobuf reader in the kernel's dependencies). Anything else is answered 404.
 * Must never listen beyond 127.0.0.1.
 */
import { createServer, type IncomingMessage } from "node:http";
import { gunzipSync } from "node:zlib";
import { eventually } from "./deadline.js";

export type ReceivedSpanKind = "unspecified" | "internal" | "server" | "client" | "producer" | "consumer";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: ReceivedSpanKind;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  /** `service.name` of the span's resource. */
  serviceName: string;
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
  bytes: number;
}

export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (spans go to `${url}/v1/traces`). */
  url: string;
  /** Every span decoded so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** Every request received so far (also the ones not decoded). */
  requests(): ReceivedRequest[];
  /** Resolves with all spans once `pred` holds of them; fails at the deadline, listing what arrived. */
  waitForSpans(pred: (spans: ReceivedSpan[]) => boolean, deadlineMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const KINDS: ReceivedSpanKind[] = ["unspecified", "internal", "server", "client", "producer", "consumer"];

type AnyValue = Record<string, unknown>;
type KeyValue = { key: string; value?: AnyValue };

/** An OTLP/JSON id: lowercase hex as the spec says, base64 as protobuf's JSON mapping would give. */
function id(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  if (/^[0-9a-fA-F]+$/.test(value) && (value.length === 32 || value.length === 16))
    return value.toLowerCase();
  return Buffer.from(value, "base64").toString("hex");
}

function anyValue(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v)
    return ((v.arrayValue as { values?: AnyValue[] }).values ?? []).map((x) => anyValue(x));
  if ("kvlistValue" in v) return attributes((v.kvlistValue as { values?: KeyValue[] }).values);
  if ("bytesValue" in v) return v.bytesValue;
  return undefined;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

function kindOf(kind: unknown): ReceivedSpanKind {
  if (typeof kind === "number") return KINDS[kind] ?? "unspecified";
  if (typeof kind === "string") {
    const name = kind.replace(/^SPAN_KIND_/, "").toLowerCase();
    return (KINDS as string[]).includes(name) ? (name as ReceivedSpanKind) : "unspecified";
  }
  return "unspecified";
}

type JsonSpan = {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number | string;
  attributes?: KeyValue[];
  links?: { traceId?: string; spanId?: string; attributes?: KeyValue[] }[];
};
type JsonExport = {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
};

/** The spans of an OTLP/JSON ExportTraceServiceRequest. */
export function decodeOtlpJson(body: JsonExport): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const serviceName = String(attributes(rs.resource?.attributes)["service.name"] ?? "");
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) {
        const parent = id(s.parentSpanId);
        out.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          ...(parent ? { parentSpanId: parent } : {}),
          name: s.name ?? "",
          kind: kindOf(s.kind),
          attributes: attributes(s.attributes),
          links: (s.links ?? []).map((l) => ({
            traceId: id(l.traceId),
            spanId: id(l.spanId),
            attributes: attributes(l.attributes),
          })),
          serviceName,
        });
      }
  }
  return out;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method !== "POST" || path !== "/v1/traces") {
      res.writeHead(404).end();
      return;
    }
    const contentType = String(req.headers["content-type"] ?? "");
    try {
      const body = await bodyOf(req);
      requests.push({ path, contentType, bytes: body.length });
      if (contentType.startsWith("application/json")) {
        spans.push(...decodeOtlpJson(JSON.parse(body.toString("utf8")) as JsonExport));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else {
        // An empty ExportTraceServiceResponse is zero bytes in protobuf.
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      }
    } catch (err) {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ code: 3, message: (err as Error).message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    requests: () => [...requests],
    async waitForSpans(pred, deadlineMs = 20_000) {
      try {
        return await eventually(() => (pred(spans) ? [...spans] : undefined), "the spans arrived", {
          timeoutMs: deadlineMs,
        });
      } catch (err) {
        const seen = spans.map((s) => `${s.name} ${s.traceId}/${s.spanId}<-${s.parentSpanId ?? "root"}`);
        throw new Error(`${(err as Error).message}; received ${spans.length}: ${seen.join(", ")}`);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
