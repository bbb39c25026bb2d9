/**
 * Prometheus metrics on a registry of this app's own: HTTP requests by method, route template and status,
 * with a latency histogram; queue depth by stored state and dead letters (read from the store at scrape
 * time); lease expiries, events moved to failed and events cancelled (counted by the services); waiting
 * long-polls and cancellation watches.
 * Must never write: a scrape only reads (an exhausted event counts as leased until a claim, the queue view
 * or the dead-letter list moves it to failed).
 */
import type { onResponseHookHandler } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { Kernel } from "../kernel.js";
import type { EventsObserver } from "../services/events-observer.js";
import { createRequestSeries } from "./request-series.js";

export function createMetrics() {
  const registry = new Registry();
  // The event-loop lag histogram samples every 100 ms instead of prom-client's 10 ms: with no driver at all
  // the 10 ms timer was most of an idle kernel's CPU, and a tenth of a second still catches every stall
  // worth an alert.
  collectDefaultMetrics({ register: registry, prefix: "cap_kernel_", eventLoopMonitoringPrecision: 100 });
  // HTTP requests by method, route and status are counted outside prom-client (request-series.ts).
  const requests = createRequestSeries();
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
  const cancelled = new Counter({
    name: "cap_events_cancelled_total",
    help: "Events cancelled (feature cancel), by reason: superseded (double texting) or requested (any other)",
    labelNames: ["reason"],
    registers: [registry],
  });
  const observer: EventsObserver = {
    leaseExpired: (n) => leaseExpiries.inc(n),
    deadLettered: (n) => deadLettered.inc(n),
    cancelled: (reason, n) => cancelled.inc({ reason }, n),
  };

  return {
    registry,
    observer,
    /** Counts one answer to a request that matched no route (the error handlers call it). */
    observeRequest: requests.observe,
    /** The onResponse hook of one route, which counts its answers under `route`, its template. */
    responseHook(route: string): onResponseHookHandler {
      const record = requests.recorder(route);
      return (req, reply, done) => {
        record(req.method, reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
    },
    /** Every metric in the Prometheus text format (served at /metrics). */
    async text(): Promise<string> {
      const rest = await registry.metrics();
      return (rest === "" || rest.endsWith("\n") ? rest : `${rest}\n`) + requests.text();
    },
    /** Gauges that read live state; call once the store and the wake hub exist. */
    bindLive(queueStats: Kernel["health"]["queueStats"], waiters: () => number, watches: () => number) {
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
      new Gauge({
        name: "cap_cancel_watches_waiting",
        help: "Cancellation watches (feature cancel) currently held open",
        registers: [registry],
        collect() {
          this.set(watches());
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
