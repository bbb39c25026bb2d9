/**
 * buildApp({store | db, config}): the kernel as a Fastify app — CAP under /api/agents/runtime, the admin
 * surface under /api, ops routes — with one error shape, JSON-only bodies, metrics and redacted logs.
 * close() is graceful: long-polls are released with [] first, in-flight requests finish, new ones get 503.
 * Routes stay thin; every rule lives in the services (src/services), every query in the store.
 */

import { defaultDocsDir, registerConsoleAndDocs } from "@commonly/cap-console";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { KernelConfigInput } from "../config.js";
import { createKernel, type Kernel, openKernel, type Store } from "../kernel.js";
import { type ProfileName, wireProfile } from "../profiles/index.js";
import type { KernelTracing } from "../tracing/load.js";
import { kernelVersion } from "../version.js";
import { installConnectionLimits, serverTimeouts } from "./connections.js";
import { installJsonOnly } from "./content-type.js";
import { installErrorHandling } from "./errors.js";
import {
  FRAMEWORK_ERROR_OPTIONS,
  FRAMEWORK_HTTP_OPTIONS,
  installFrameworkErrors,
} from "./framework-errors.js";
import { installGracefulClose } from "./graceful-close.js";
import { createLogger, type LoggerOptions } from "./logger.js";
import { createMetrics } from "./metrics.js";
import { installRateLimits } from "./rate-limits.js";
import { lazyRequestLogger } from "./request-logger.js";
import { adminRoutes } from "./routes/admin.js";
import { capRoutes } from "./routes/cap.js";
import { opsRoutes } from "./routes/ops.js";
import "./types.js";
import { Validators } from "./validation.js";

export type BuildAppOptions = AppOptions & ({ store: Store } | { db: string });

interface AppOptions {
  config?: KernelConfigInput;
  clock?: Clock;
  /** The wire dialect of the CAP routes (src/profiles): `cap` (default, CAP v1 exactly) or `production`. */
  profile?: ProfileName;
  /** false: no logs. Default: info-level JSON lines on stdout. */
  logger?: false | LoggerOptions | Logger;
  /**
   * Folder of the built docs site served at `/docs/`; default the copy `@commonly/cap-console` carries
   * (present once installed from npm; a clone passes its `docs/site`). `false`: no `/docs/`.
   */
  docsDir?: string | false;
  /** False: the kernel without accelerators (KernelOptions.accelerate), for reading the reference path. */
  accelerate?: boolean;
  /**
   * OpenTelemetry, started (src/tracing: `loadTracing()` reads OTEL_*): route, send, receive and store
   * spans, `trace_id`/`span_id` on log lines, flushed when the app closes. Absent: no tracing code at all.
   */
  tracing?: KernelTracing;
}

export type KernelApp = FastifyInstance & { kernel: Kernel };

export { serverTimeouts } from "./connections.js";

/** A tracing kernel's request logger: no received `traceId`, the mixin writes the span's ids. */
const spanRequestLogger: typeof lazyRequestLogger = (logger, bindings, options) =>
  lazyRequestLogger(logger, bindings, options);

let validatorsCache: Validators | null = null;

export async function buildApp(options: BuildAppOptions): Promise<KernelApp> {
  const metrics = createMetrics();
  const { tracing } = options;
  const kernelOptions = {
    ...(options.config ? { config: options.config } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    observer: metrics.observer,
    ...(options.accelerate === false ? { accelerate: false } : {}),
    ...(tracing ? { instrument: tracing.instrument } : {}),
  };
  const kernel =
    "db" in options
      ? await openKernel({ ...kernelOptions, db: options.db })
      : createKernel({ ...kernelOptions, store: options.store });
  validatorsCache ??= new Validators();
  const validators = validatorsCache;
  const logger =
    options.logger === false
      ? undefined
      : options.logger && "info" in options.logger
        ? options.logger
        : createLogger({ ...options.logger, ...(tracing ? { mixin: tracing.logMixin } : {}) });
  const timeouts = serverTimeouts(kernel.config.limits);
  const app = Fastify({
    ...(logger
      ? { loggerInstance: logger, childLoggerFactory: tracing ? spanRequestLogger : lazyRequestLogger }
      : { logger: false }),
    bodyLimit: kernel.config.bodyLimitBytes,
    return503OnClosing: false,
    // HEAD answers wherever GET does (ops, static files, every read), except where a GET is not a safe
    // read: GET /events claims events, so its HEAD twin would claim them and throw them away. Such a route
    // opts out with `exposeHeadRoute: false`; test/security/head-routes.test.ts names each one.
    exposeHeadRoutes: true,
    // Long-polls: a 25 s wait must outlive every server timeout, and thousands of drivers may each keep one
    // connection open. No idle-socket timeout (a parked poll sends nothing for 25 s) and no cap on requests
    // per connection; the other timeouts bound only receiving a request and the idle time between two
    // (connections.ts), so a silent socket is closed after the headers timeout, never a waiting poll.
    connectionTimeout: 0,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    requestTimeout: timeouts.requestTimeout,
    // Errors below the routes answer the registry shape too (framework-errors.ts).
    ...FRAMEWORK_ERROR_OPTIONS,
    http: {
      ...FRAMEWORK_HTTP_OPTIONS,
      headersTimeout: timeouts.headersTimeout,
      connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
    },
    maxRequestsPerSocket: 0,
  }) as unknown as FastifyInstance;
  installConnectionLimits(app.server, kernel.config.limits.maxConnectionsPerClient);
  // Before any route, so that every route gets its span; flushed once the last request is answered.
  if (tracing) {
    await app.register(tracing.plugin);
    app.addHook("onClose", () => tracing.shutdown());
  }
  installFrameworkErrors(app.server);

  let closing = false;
  app.decorate("kernel", kernel);
  app.decorateRequest("agent", null);
  app.decorateRequest("user", null);
  installJsonOnly(app, kernel.config.limits.maxJsonDepth);
  // Requests that matched no route are counted as "unmatched"; every route counts its own (onRoute below).
  installErrorHandling(app, {
    onUnmatched: (req, reply) =>
      metrics.observeRequest(req.method, "unmatched", reply.statusCode, reply.elapsedTime / 1000),
  });
  metrics.bindLive(
    kernel.health.queueStats,
    () => kernel.hub.waiterCount(),
    () => kernel.cancelHub.watchCount(),
  );

  // Each route gets the metrics hook for its own template, made once here: one global onResponse hook
  // would read req.routeOptions.url, a getter that builds a new options object on every call.
  app.addHook("onRoute", (route) => {
    const hook = metrics.responseHook(route.url);
    route.onResponse = route.onResponse === undefined ? hook : [route.onResponse, hook].flat();
  });
  // New requests are refused 503 while closing; the others are counted until answered (graceful-close.ts).
  installGracefulClose(
    app,
    () => {
      closing = true;
      kernel.hub.close();
      kernel.cancelHub.close();
    },
    () => closing,
  );
  app.addHook("onClose", async () => kernel.tokens.cache.close());

  const rateLimits = await installRateLimits(app, kernel.config.limits);
  const deps = { kernel, validators, profile: wireProfile(options.profile), rateLimits };
  await app.register(opsRoutes, { ...deps, metrics, isClosing: () => closing });
  await app.register(capRoutes, { ...deps, prefix: CAP_BASE_PATH });
  await app.register(adminRoutes, { ...deps, prefix: "/api" });
  // The dev console (/console/) and the docs site (/docs/): static files, served on every kernel so a
  // driver author keeps one URL open beside their editor.
  await registerConsoleAndDocs(app, {
    docsDir: options.docsDir ?? defaultDocsDir,
    home: { name: "cap-kernel", version: kernelVersion() },
  });
  return app as KernelApp;
}
