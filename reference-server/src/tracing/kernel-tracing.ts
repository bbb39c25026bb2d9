/**
 * What a started tracing hands the app (http/app.ts) to install; the shape shared by load.ts, which the
 * app imports, and setup.ts, which only load.ts imports (dynamically).
 */
import type { FastifyPluginCallback } from "fastify";
import type { KernelInstrumentation } from "../kernel.js";

export interface KernelTracing {
  /** For the startup line: tracing is on, and where the spans go. */
  readonly description: string;
  /** OTEL_* values set but not used, one sentence each. */
  readonly warnings: readonly string[];
  /** Route spans: registered before any route. */
  readonly plugin: FastifyPluginCallback;
  /** Store and poll spans, wrapped around the kernel's parts. */
  readonly instrument: KernelInstrumentation;
  /** pino mixin: `trace_id` and `span_id` of the active span. */
  readonly logMixin: () => Record<string, string>;
  /** Ends tracing: exports what is buffered (the app's close calls it). Once; later calls wait for it. */
  shutdown(): Promise<void>;
}
