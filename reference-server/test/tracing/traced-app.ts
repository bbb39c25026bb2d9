/**
 * A tracing kernel in this process for span tests: OpenTelemetry started with an in-memory exporter (one
 * span exported as it ends), the app on `sqlite::memory:` listening on a real socket, provisioned with
 * one human, one pod and the agent `echo` (woken by every human message).
 */
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { DestinationStream } from "pino";
import { provision } from "../../src/cli/provision.js";
import { buildApp, type KernelApp } from "../../src/http/app.js";
import type { KernelTracing } from "../../src/tracing/kernel-tracing.js";
import { tracingSettings } from "../../src/tracing/settings.js";
import { startTracing } from "../../src/tracing/setup.js";

export const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const PARENT_ID = "b7ad6b7169203331";
export const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

export interface Traced {
  exporter: InMemorySpanExporter;
  tracing: KernelTracing;
  spans(): ReadableSpan[];
  named(name: string): ReadableSpan[];
  stop(): Promise<void>;
}

/** Tracing with an in-memory exporter; stop() shuts it down (the enqueue hook back to identity). */
export async function startInMemoryTracing(): Promise<Traced> {
  const exporter = new InMemorySpanExporter();
  const tracing = await startTracing(tracingSettings({ OTEL_TRACES_EXPORTER: "otlp" })!, { exporter });
  return {
    exporter,
    tracing,
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((s) => s.name === name),
    stop: () => tracing.shutdown(),
  };
}

export interface TracedApp extends Traced {
  app: KernelApp;
  url: string;
  human: string;
  agent: string;
  podId: string;
  call(
    method: string,
    path: string,
    token: string,
    init?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: unknown }>;
}

export async function startTracedApp(
  options: { logStream?: DestinationStream; logLevel?: string } = {},
): Promise<TracedApp> {
  const traced = await startInMemoryTracing();
  const app = await buildApp({
    db: "sqlite::memory:",
    tracing: traced.tracing,
    docsDir: false,
    logger: options.logStream ? { level: options.logLevel ?? "info", stream: options.logStream } : false,
  });
  const made = await provision(app.kernel, {
    users: [{ name: "lily", admin: true }],
    pods: [{ name: "lab", owner: "lily" }],
    agents: [{ name: "echo", pods: ["lab"], messagePosted: true }],
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    ...traced,
    app,
    url,
    human: made.users[0]!.token,
    agent: made.agents[0]!.token,
    podId: made.pods[0]!.id,
    async call(method, path, token, init = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...init.headers,
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async stop() {
      await app.close();
      await app.kernel.close();
      await traced.stop();
    },
  };
}
