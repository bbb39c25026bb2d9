/**
 * One server span per HTTP request, by @fastify/otel: named `{method} {route}`, a child of the request's
 * `traceparent` (extracted by the CAP propagator), with the HTTP attributes @fastify/otel sets. No span
 * per hook or handler (one span per route is the design's), and none for the probes, the metrics scrape,
 * the console's and the docs' static files. The request's context is made active again for the handler,
 * which @fastify/otel otherwise does only through the handler span turned off here: a body arrives on a
 * socket event, outside the context of the hook that started the span.
 * Must be registered before any route, so every route gets its span.
 */
import { FastifyOtelInstrumentation } from "@fastify/otel";
import { context, type TracerProvider } from "@opentelemetry/api";
import type { FastifyPluginCallback, FastifyRequest } from "fastify";

/** Paths with no span: probes, metrics, static pages (templates at registration, URLs per request). */
const UNTRACED = /^\/(?:healthz|readyz|metrics)(?:\?|$)|^\/(?:console|docs)(?:[/?]|$)/;

export function routeSpans(provider: TracerProvider): FastifyPluginCallback {
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    instrumentHandler: false,
    ignorePaths: (route: { url?: string }) => UNTRACED.test(route.url ?? ""),
    requestHook: (span, request: FastifyRequest) => {
      const route = request.routeOptions.url;
      span.updateName(route ? `${request.method} ${route}` : request.method);
    },
  });
  instrumentation.setTracerProvider(provider);
  const otel = instrumentation.plugin();

  const plugin: FastifyPluginCallback = (app, _opts, done) => {
    app.register(otel);
    app.after(() => {
      app.addHook("preHandler", (request, _reply, next) => {
        const own = request.opentelemetry();
        if (own.context) context.with(own.context, next);
        else next();
      });
    });
    done();
  };
  // Hooks and the span apply to the whole app, not to an encapsulated child (fastify-plugin's marker).
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for("skip-override")] = true;
  return plugin;
}
