/**
 * Operations routes, unauthenticated: /healthz (the process is up), /readyz (the store answers a query;
 * 503 store_unavailable otherwise, 503 unavailable while shutting down; it names the store and the wire
 * profile), /metrics (Prometheus text format).
 */
import type { FastifyInstance } from "fastify";
import type { Metrics } from "../metrics.js";
import type { RouteDeps } from "../types.js";
export declare function opsRoutes(app: FastifyInstance, deps: RouteDeps & {
    metrics: Metrics;
    isClosing: () => boolean;
}): Promise<void>;
