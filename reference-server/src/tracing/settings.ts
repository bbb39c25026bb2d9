/**
 * Whether the kernel records spans, and where they go, from the standard OTEL_* variables only: on when
 * OTEL_TRACES_EXPORTER names `otlp` or `console`, or when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 * The rest (sampler, batch sizes, headers, timeouts, resource attributes) the SDK reads itself.
 * Must never load OpenTelemetry: with tracing off, reading these few variables is all the kernel does.
 */

export type TraceProtocol = "http/protobuf" | "http/json";
export type TraceExporterName = "otlp" | "console";

export interface TracingSettings {
  exporters: TraceExporterName[];
  protocol: TraceProtocol;
  /** The OTLP/HTTP URL spans are posted to (`…/v1/traces`). */
  url: string;
  serviceName: string;
  /** What was set but not used, for a warning line each. */
  warnings: string[];
}

export const DEFAULT_SERVICE_NAME = "cap-kernel";
const DEFAULT_ENDPOINT = "http://localhost:4318";
const PROTOCOLS: readonly string[] = ["http/protobuf", "http/json"];

type Env = Record<string, string | undefined>;

const value = (env: Env, name: string) => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/** `service.name` of OTEL_RESOURCE_ATTRIBUTES (`k=v,k=v`, values percent-encoded), if set there. */
function resourceServiceName(env: Env): string | undefined {
  for (const pair of (value(env, "OTEL_RESOURCE_ATTRIBUTES") ?? "").split(",")) {
    const [key, ...rest] = pair.split("=");
    if (key?.trim() !== "service.name" || rest.length === 0) continue;
    try {
      return decodeURIComponent(rest.join("=").trim()) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The traces URL by the OTLP exporter's rules: the signal's endpoint as is, else the base + /v1/traces. */
function tracesUrl(env: Env): string {
  const signal = value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (signal) return signal;
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT") ?? DEFAULT_ENDPOINT;
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

/** The tracing settings the environment asks for, or undefined when tracing is off. */
export function tracingSettings(env: Env = process.env): TracingSettings | undefined {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const warnings: string[] = [];
  const named = value(env, "OTEL_TRACES_EXPORTER")
    ?.split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  let exporters: TraceExporterName[];
  if (named && named.length > 0) {
    if (named.includes("none")) return undefined;
    exporters = [...new Set(named.filter((n): n is TraceExporterName => n === "otlp" || n === "console"))];
    for (const n of named.filter((x) => x !== "otlp" && x !== "console"))
      warnings.push(`OTEL_TRACES_EXPORTER=${n} is not supported (otlp, console); ignored`);
    if (exporters.length === 0) return undefined;
  } else if (value(env, "OTEL_EXPORTER_OTLP_ENDPOINT") || value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
    exporters = ["otlp"];
  } else {
    return undefined;
  }
  let protocol: TraceProtocol = "http/protobuf";
  const asked = value(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (asked !== undefined && exporters.includes("otlp")) {
    if (PROTOCOLS.includes(asked)) protocol = asked as TraceProtocol;
    else
      warnings.push(
        `OTLP protocol ${asked} is not supported (http/protobuf, http/json); using http/protobuf`,
      );
  }
  return {
    exporters,
    protocol,
    url: tracesUrl(env),
    serviceName: value(env, "OTEL_SERVICE_NAME") ?? resourceServiceName(env) ?? DEFAULT_SERVICE_NAME,
    warnings,
  };
}

/** The URL without credentials, query or fragment: what the startup line may show. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

/** One line for a person: tracing is on, and where the spans go. */
export function describeTracing(s: TracingSettings): string {
  const where = s.exporters.map((e) =>
    e === "otlp" ? `OTLP ${s.protocol} to ${shownUrl(s.url)}` : "stderr (console exporter)",
  );
  return `tracing on: spans of service ${s.serviceName} to ${where.join(" and ")}`;
}
