/**
 * The propagator the route spans extract their parent with: W3C Trace Context, but a header is accepted
 * only when the kernel's own reading of it (services/trace-context.ts) accepts it, so a span's parent and
 * the context an event carries always come from the same rules (a repeated or oversized `traceparent`
 * starts a new root in both). `baggage` is not a field: it is never read.
 * Must never throw on a header value, or extract a context readTraceContext refused.
 */
import {
  type Context,
  defaultTextMapGetter,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { readTraceContext } from "../services/trace-context.js";

export class CapTraceContextPropagator implements TextMapPropagator {
  readonly #w3c = new W3CTraceContextPropagator();

  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    this.#w3c.inject(context, carrier, setter);
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const received = readTraceContext({
      traceparent: getter.get(carrier, "traceparent"),
      tracestate: getter.get(carrier, "tracestate"),
    });
    if (received === undefined) return context;
    return this.#w3c.extract(context, received, defaultTextMapGetter);
  }

  fields(): string[] {
    return this.#w3c.fields();
  }
}
