/**
 * OpenTelemetry for the kernel, loaded (by load.ts) only when tracing is on: a tracer provider with the
 * resource (`service.name` default `cap-kernel`, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win), the
 * sampler and batch settings the SDK reads from OTEL_*, the exporters the settings name; the process's
 * context manager (AsyncLocalStorage) and propagator (CAP's W3C reading); the `send` hook; and the parts
 * the app installs — route spans, store and poll wrappers, the log mixin. shutdown() flushes and undoes it.
 * Must never register a global tracer provider: the kernel's spans come from its own provider, so an
 * embedding application keeps its own.
 */
import { context, propagation, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { setEnqueueTraceHook } from "../services/trace-context.js";
import { kernelVersion } from "../version.js";
import type { KernelTracing } from "./kernel-tracing.js";
import { traceLogFields } from "./log-fields.js";
import { CapTraceContextPropagator } from "./propagator.js";
import { tracedEvents } from "./receive-span.js";
import { routeSpans } from "./route-spans.js";
import { sendSpanHook } from "./send-span.js";
import { DEFAULT_SERVICE_NAME, describeTracing, type TracingSettings } from "./settings.js";
import { StderrSpanExporter } from "./stderr-exporter.js";
import { tracedStore } from "./store-spans.js";

export interface StartTracingOptions {
  /** Export to this instead of the settings' exporters, one span at a time (tests: InMemorySpanExporter). */
  exporter?: SpanExporter;
}

async function otlpExporter(settings: TracingSettings): Promise<SpanExporter> {
  // Only the protocol in use is loaded; headers, timeout and compression come from OTEL_EXPORTER_OTLP_*.
  const { OTLPTraceExporter } =
    settings.protocol === "http/json"
      ? await import("@opentelemetry/exporter-trace-otlp-http")
      : await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url: settings.url });
}

async function processors(settings: TracingSettings, options: StartTracingOptions): Promise<SpanProcessor[]> {
  if (options.exporter) return [new SimpleSpanProcessor(options.exporter)];
  const out: SpanProcessor[] = [];
  for (const name of settings.exporters)
    out.push(
      new BatchSpanProcessor(name === "otlp" ? await otlpExporter(settings) : new StderrSpanExporter()),
    );
  return out;
}

export async function startTracing(
  settings: TracingSettings,
  options: StartTracingOptions = {},
): Promise<KernelTracing> {
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME,
    [ATTR_SERVICE_VERSION]: kernelVersion(),
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: await processors(settings, options),
  });
  const tracer: Tracer = provider.getTracer("@commonly/cap-kernel", kernelVersion());
  // An embedding application's own context manager or propagator stays; ours is set only where none is.
  const ownContext = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const ownPropagator = propagation.setGlobalPropagator(new CapTraceContextPropagator());
  setEnqueueTraceHook(sendSpanHook(tracer));
  let shut: Promise<void> | undefined;
  return {
    description: describeTracing(settings),
    warnings: settings.warnings,
    plugin: routeSpans(provider),
    instrument: {
      store: (store) => tracedStore(store, tracer),
      events: (events) => tracedEvents(events, tracer),
    },
    logMixin: traceLogFields,
    shutdown() {
      shut ??= (async () => {
        setEnqueueTraceHook(undefined);
        try {
          await provider.shutdown();
        } catch (err) {
          // A collector that is down must not fail the kernel's close: its spans are lost, and said so.
          process.stderr.write(
            `cap-kernel: warning: spans not exported at shutdown: ${(err as Error).message}\n`,
          );
        } finally {
          if (ownContext) context.disable();
          if (ownPropagator) propagation.disable();
        }
      })();
      return shut;
    },
  };
}
