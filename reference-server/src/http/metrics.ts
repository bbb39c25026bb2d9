/**
 * Prometheus metrics on a registry of this app's own: HTTP requests by method, route template and status,
 * with a latency histogram; queue depth by stored state and dead letters (read from the store at scrape
 * time); lease expiries and events moved to failed (counted by the events service); waiting long-polls.
 * Must never write: a scrape only reads (an exhausted event counts as leased until a claim, the queue view
 * or the dead-letter list moves it to failed).
 */
import type { onResponseHookHandler } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Kernel } from "../kernel.js";
import type { EventsObserver } from "../services/events-observer.js";

export function createMetrics() {
  const registry = new Registry();
  // The event-loop lag histogram samples every 100 ms instead of prom-client's 10 ms: with no driver at all
  // the 10 ms timer was two thirds of an idle kernel's CPU (15 → 5 ticks of /proc over 30 s), and a tenth
  // of a second still catches every stall worth an alert.
  collectDefaultMetrics({ register: registry, prefix: "cap_kernel_", eventLoopMonitoringPrecision: 100 });
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "cap_http_requests_total",
    help: "HTTP requests",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "cap_http_request_duration_seconds",
    help: "HTTP request latency",
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const leaseExpiries = new Counter({
    name: "cap_lease_expiries_total",
    help: "Leases that ended without an ack (observed at claim: redelivered or retired)",
    registers: [registry],
  });
  const deadLettered = new Counter({
    name: "cap_events_dead_lettered_total",
    help: "Events moved to failed after maxAttempts deliveries",
    registers: [registry],
  });
  const children = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof duration.labels> }
  >();
  const observer: EventsObserver = {
    leaseExpired: (n) => leaseExpiries.inc(n),
    deadLettered: (n) => deadLettered.inc(n),
  };

  const observeRequest = (method: string, route: string, status: number, seconds: number) => {
    // One labelled child pair per (method, route, status), found by a string key: prom-client hashes a
    // labels object on every inc/observe, which showed on the per-request path of the drain.
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method, route, status: String(status) };
      child = { count: requests.labels(labels), time: duration.labels(labels) };
      children.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  };

  return {
    registry,
    observer,
    observeRequest,
    /**
     * The onResponse hook of one route, which counts its answers under `route` (its template). Given per
     * route because the template is known there: a global hook would read req.routeOptions on every
     * response, a getter that builds a new options object and asks the router about constraints.
     */
    responseHook(route: string): onResponseHookHandler {
      return (req, reply, done) => {
        observeRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
    },
    /** Gauges that read live state; call once the store and the wake hub exist. */
    bindLive(queueStats: Kernel["health"]["queueStats"], waiters: () => number) {
      new Gauge({
        name: "cap_queue_events",
        help: "Events by stored state (leased includes leases that have ended but were not yet re-claimed)",
        labelNames: ["state"],
        registers: [registry],
        async collect() {
          const stats = await queueStats();
          for (const [state, n] of Object.entries(stats)) this.set({ state }, n);
        },
      });
      new Gauge({
        name: "cap_dead_letters",
        help: "Events in the failed state (dead letters), re-queueable by an operator",
        registers: [registry],
        async collect() {
          this.set((await queueStats()).failed);
        },
      });
      new Gauge({
        name: "cap_long_polls_waiting",
        help: "Long-polls currently held open",
        registers: [registry],
        collect() {
          this.set(waiters());
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
