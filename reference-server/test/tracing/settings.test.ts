/**
 * When the kernel traces, from the standard OTEL_* variables only (src/tracing/settings.ts), and the
 * startup line that says where its spans go.
 */
import { describe, expect, it } from "vitest";
import { describeTracing, tracingSettings } from "../../src/tracing/settings.js";

const ENDPOINT = "http://collector:4318";

describe("tracingSettings", () => {
  it.each<[string, Record<string, string>, boolean]>([
    ["nothing set", {}, false],
    ["an endpoint", { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, true],
    ["a traces endpoint", { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }, true],
    ["the otlp exporter named", { OTEL_TRACES_EXPORTER: "otlp" }, true],
    ["the console exporter named", { OTEL_TRACES_EXPORTER: "console" }, true],
    [
      "exporter none, endpoint set",
      { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT },
      false,
    ],
    ["the SDK disabled", { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, false],
    ["the SDK disabled, any case", { OTEL_SDK_DISABLED: "TRUE", OTEL_TRACES_EXPORTER: "otlp" }, false],
    ["OTEL_SDK_DISABLED=false", { OTEL_SDK_DISABLED: "false", OTEL_TRACES_EXPORTER: "otlp" }, true],
    [
      "only an unsupported exporter",
      { OTEL_TRACES_EXPORTER: "zipkin", OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT },
      false,
    ],
    ["an empty endpoint", { OTEL_EXPORTER_OTLP_ENDPOINT: " " }, false],
    ["only other OTEL_ variables", { OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" }, false],
  ])("%s: tracing %s", (_name, env, on) => {
    expect(tracingSettings(env) !== undefined).toBe(on);
  });

  it("exports OTLP http/protobuf to localhost:4318 as service cap-kernel by default", () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: "otlp" })).toEqual({
      exporters: ["otlp"],
      protocol: "http/protobuf",
      url: "http://localhost:4318/v1/traces",
      serviceName: "cap-kernel",
      warnings: [],
    });
  });

  it("appends /v1/traces to the base endpoint and takes the traces endpoint as it is", () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: `${ENDPOINT}/` })?.url).toBe(
      `${ENDPOINT}/v1/traces`,
    );
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://other:9999/spans",
      })?.url,
    ).toBe("http://other:9999/spans");
  });

  it("takes the traces protocol before the general one, and warns about one it cannot speak", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" };
    expect(tracingSettings({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" })?.protocol).toBe(
      "http/json",
    );
    const grpc = tracingSettings({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(grpc?.protocol).toBe("http/protobuf");
    expect(grpc?.warnings).toEqual([expect.stringContaining("grpc is not supported")]);
  });

  it("names the service from OTEL_SERVICE_NAME, else from OTEL_RESOURCE_ATTRIBUTES", () => {
    const on = { OTEL_TRACES_EXPORTER: "otlp" };
    expect(
      tracingSettings({ ...on, OTEL_RESOURCE_ATTRIBUTES: "a=b,service.name=my%20kernel" })?.serviceName,
    ).toBe("my kernel");
    expect(
      tracingSettings({ ...on, OTEL_SERVICE_NAME: "k1", OTEL_RESOURCE_ATTRIBUTES: "service.name=k2" })
        ?.serviceName,
    ).toBe("k1");
  });

  it("keeps the supported exporters of a list and warns about the others", () => {
    const s = tracingSettings({ OTEL_TRACES_EXPORTER: "otlp, console,jaeger" });
    expect(s?.exporters).toEqual(["otlp", "console"]);
    expect(s?.warnings).toEqual([expect.stringContaining("jaeger")]);
  });
});

describe("describeTracing", () => {
  it("says where spans go without the endpoint's credentials or query", () => {
    const s = tracingSettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://user:secret@collector.example:4318/v1/traces?key=k",
      OTEL_TRACES_EXPORTER: "otlp,console",
    });
    const line = describeTracing(s!);
    expect(line).toBe(
      "tracing on: spans of service cap-kernel to OTLP http/protobuf to https://collector.example:4318/v1/traces and stderr (console exporter)",
    );
    expect(line).not.toMatch(/secret|key=k/);
  });
});
