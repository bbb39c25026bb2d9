/**
 * Prometheus metrics on a registry of this app's own: HTTP requests by method, route template and status,
 * with a latency histogram; queue depth by stored state and dead letters (read from the store at scrape
 * time); lease expiries and events moved to failed (counted by the events service); waiting long-polls.
 * Must never write: a scrape only reads (an exhausted event counts as leased until a claim, the queue view
 * or the dead-letter list moves it to failed).
 */
import type { onResponseHookHandler } from "fastify";
import { Registry } from "prom-client";
import type { Kernel } from "../kernel.js";
import type { EventsObserver } from "../services/events-observer.js";
export declare function createMetrics(): {
    registry: Registry<"text/plain; version=0.0.4; charset=utf-8">;
    observer: EventsObserver;
    /** Counts one answer to a request that matched no route (the error handlers call it). */
    observeRequest: (method: string, route: string, status: number, seconds: number) => void;
    /** The onResponse hook of one route, which counts its answers under `route`, its template. */
    responseHook(route: string): onResponseHookHandler;
    /** Every metric in the Prometheus text format (served at /metrics). */
    text(): Promise<string>;
    /** Gauges that read live state; call once the store and the wake hub exist. */
    bindLive(queueStats: Kernel["health"]["queueStats"], waiters: () => number): void;
};
export type Metrics = ReturnType<typeof createMetrics>;
