/**
 * The kernel's door to tracing: reads the OTEL_* settings and, only when they turn tracing on, imports
 * OpenTelemetry (setup.ts) and starts it. With tracing off nothing of OpenTelemetry is loaded, no wrapper
 * is installed, and the app is built exactly as without this module.
 * Must never import setup.ts or any @opentelemetry package statically.
 */
import type { KernelTracing } from "./kernel-tracing.js";
import { tracingSettings } from "./settings.js";

export type { KernelTracing } from "./kernel-tracing.js";

/** Tracing as the environment configures it, started; undefined when it is off. */
export async function loadTracing(
  env: Record<string, string | undefined> = process.env,
): Promise<KernelTracing | undefined> {
  const settings = tracingSettings(env);
  if (settings === undefined) return undefined;
  const { startTracing } = await import("./setup.js");
  return startTracing(settings);
}
