/**
 * Tracing off costs nothing: a kernel served without OTEL_* loads no OpenTelemetry SDK, exporter or
 * instrumentation module (the tracing module imports them only when on), and serves as before. The API
 * package is not counted: prom-client loads its own copy for exemplars, tracing or not. The same probe
 * with tracing on finds them, so the probe can see what it looks for; and a collector that is down does
 * not fail the close.
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { kernelBin, kernelMissing } from "../../src/testing/index.js";

const run = promisify(execFile);

/** Serves the built kernel in a child process, answers one request, and lists the tracing modules it loaded. */
async function loadedTracingModules(env: Record<string, string>): Promise<string[]> {
  const serve = join(dirname(kernelBin()), "cli", "serve.js");
  const script = `
    import { createRequire } from "node:module";
    const { startServer } = await import(${JSON.stringify(serve)});
    const { app, url } = await startServer({ port: "0", db: "sqlite::memory:", logLevel: "warn" }, { logger: false, announceNewDb: false });
    const res = await fetch(url + "/api/pods", { headers: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } });
    if (res.status !== 401) throw new Error("unexpected status " + res.status);
    await app.close();
    await app.kernel.close();
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter(
      (p) => (p.includes("/node_modules/@opentelemetry/") && !p.includes("/node_modules/@opentelemetry/api/")) || p.includes("/node_modules/@fastify/otel/"),
    );
    process.stdout.write(JSON.stringify(loaded));
  `;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...clean, ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as string[];
}

describe.skipIf(kernelMissing())("tracing off", () => {
  it("loads no OpenTelemetry module", async () => {
    expect(await loadedTracingModules({})).toEqual([]);
  });

  it("(the probe finds them when tracing is on, and the close survives a collector that is down)", async () => {
    const loaded = await loadedTracingModules({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
    });
    expect(loaded.some((p) => p.includes("@opentelemetry"))).toBe(true);
    expect(loaded.some((p) => p.includes("/@fastify/otel/"))).toBe(true);
  });
});
