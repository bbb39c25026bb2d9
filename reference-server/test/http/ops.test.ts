/**
 * Ops: /healthz, /readyz really querying the store (503 unavailable when it cannot), Prometheus /metrics
 * with request, queue, lease-expiry and dead-letter series; 503 with the error shape while shutting down.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, makeWorld, type World } from "../helpers/world.js";

let w: World;
afterEach(async () => {
  await w.app.close().catch(() => undefined);
});

describe("ops routes", () => {
  it("answers /healthz and /readyz while the store answers", async () => {
    w = await makeWorld();
    expect((await w.req({ url: "/healthz" })).json()).toEqual({ ok: true });
    expect((await w.req({ url: "/readyz" })).json()).toEqual({ ok: true, store: "sqlite", profile: "cap" });
  });

  it("names itself and its version at / and points to the console, the docs and CAP", async () => {
    w = await makeWorld();
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const res = await w.req({ url: "/", headers: { accept: "application/json" } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: "cap-kernel",
      version,
      cap: { basePath: "/api/agents/runtime", info: "/api/agents/runtime/info" },
      console: "/console/",
    });
  });

  it("answers /readyz 503 store_unavailable when the store cannot be reached", async () => {
    w = await makeWorld();
    await w.store.close();
    const res = await w.req({ url: "/readyz" });
    expect([res.statusCode, res.json().code]).toEqual([503, "store_unavailable"]);
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("exposes request counts by route and status, latency, queue depth, lease expiries and dead letters", async () => {
    w = await makeWorld({ config: { leaseSeconds: 0.2, maxAttempts: 1 } });
    await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "hi" });
    await w.cap(w.alpha.token, "GET", "/events");
    await w.cap(null, "GET", "/events");
    await eventually(
      () => w.store.queueStats(),
      () => true,
    );
    await new Promise((r) => setTimeout(r, 250));
    await w.cap(w.alpha.token, "GET", "/events");
    const text = (await w.req({ url: "/metrics" })).body;
    expect(text).toMatch(
      /cap_http_requests_total\{method="GET",route="\/api\/agents\/runtime\/events",status="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /cap_http_requests_total\{method="GET",route="\/api\/agents\/runtime\/events",status="401"\} 1/,
    );
    expect(text).toMatch(
      /cap_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/agents\/runtime\/events"/,
    );
    expect(text).toMatch(/cap_queue_events\{state="pending"\} 1/);
    expect(text).toMatch(/cap_queue_events\{state="failed"\} 1/);
    expect(text).toMatch(/cap_lease_expiries_total 1/);
    expect(text).toMatch(/cap_events_dead_lettered_total 1/);
    expect(text).toMatch(/cap_dead_letters 1/);
    expect(text).toMatch(/cap_long_polls_waiting 0/);
    // Node's own metrics, the event-loop lag among them (sampled every 100 ms: metrics.ts).
    expect(text).toMatch(/cap_kernel_nodejs_eventloop_lag_p99_seconds \d/);
  });

  it("counts each route under its template, parameters and prefix included, and what matched none as unmatched", async () => {
    w = await makeWorld();
    await w.cap(w.alpha.token, "POST", "/events/evt_nope/ack", {});
    await w.req({ url: "/no/such/route" });
    // An error found before any route could answer (a malformed body on an unknown path) counts too.
    await w.req({
      method: "POST",
      url: "/no/such/route",
      headers: { "content-type": "application/json" },
      payload: "{",
    });
    const text = (await w.req({ url: "/metrics" })).body;
    expect(text).toMatch(
      /cap_http_requests_total\{method="POST",route="\/api\/agents\/runtime\/events\/:id\/ack",status="404"\} 1/,
    );
    expect(text).toMatch(/cap_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    expect(text).toMatch(/cap_http_requests_total\{method="POST",route="unmatched",status="400"\} 1/);
    expect(text).toMatch(
      /cap_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1/,
    );
  });

  it("answers new requests 503 unavailable while closing, in the error shape", async () => {
    w = await makeWorld();
    const waiting = w.cap(w.alpha.token, "GET", "/events?waitSeconds=20");
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    const closing = w.app.close();
    expect((await waiting).json()).toEqual({ events: [] });
    await closing;
  });
});
