/**
 * Operations routes, unauthenticated: /healthz (the process is up), /readyz (the store answers a query;
 * 503 store_unavailable otherwise, 503 unavailable while shutting down; it names the store and the wire
 * profile), /metrics (Prometheus text format).
 */
import type { FastifyInstance } from "fastify";
import { fail, KernelError } from "../../errors/registry.js";
import type { Metrics } from "../metrics.js";
import type { RouteDeps } from "../types.js";

export async function opsRoutes(
  app: FastifyInstance,
  deps: RouteDeps & { metrics: Metrics; isClosing: () => boolean },
) {
  app.get("/healthz", async () => ({ ok: true }));
  app.get("/readyz", async () => {
    if (deps.isClosing()) fail("unavailable", "The kernel is shutting down.");
    try {
      await deps.kernel.health.ping();
    } catch {
      throw new KernelError("store_unavailable", undefined, undefined, { "Retry-After": "1" });
    }
    return { ok: true, store: deps.kernel.health.storeKind, profile: deps.profile.name };
  });
  app.get("/metrics", async (_req, reply) => {
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.text();
  });
}
