/**
 * OpenTelemetry for tests: a tracer provider registered globally, with the async-local context manager
 * a Node application registers, exporting every ended span to memory (and to more exporters when
 * given, e.g. OTLP to a test receiver). `stop()` shuts it down and unregisters it, so the next test
 * file starts without one.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";

export interface RecordedSpans {
  exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  /** Ended spans named `name`. */
  named(name: string): ReadableSpan[];
  /** Sends what is buffered to every exporter. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function recordSpans(
  options: { serviceName?: string; exporters?: SpanExporter[] } = {},
): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "cap-sdk-test" }),
    spanProcessors: [exporter, ...(options.exporters ?? [])].map((e) => new SimpleSpanProcessor(e)),
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(contextManager);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((s) => s.name === name),
    flush: () => provider.forceFlush(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The `traceparent` of a recorded span, as a driver sends it. */
export function traceparentOf(span: ReadableSpan): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`;
}
