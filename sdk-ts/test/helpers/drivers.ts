/**
 * Starting `runDriver` against a test kernel with a recording of its hooks, and a fault-injecting
 * `fetch` for client-side failures (a dropped ack, a renew that cannot get through) that a real
 * network produces but a test cannot schedule.
 */

import type { TestKernel } from "@commonly/cap-kernel/testing";
import { CapClient, type CapClientOptions } from "../../src/client.js";
import { runDriver } from "../../src/driver.js";
import type { DriverOptions, DriverSummary } from "../../src/driver-types.js";
import { CapSdkError } from "../../src/errors.js";

/** A fetch that fails requests matching `drop` (while it returns true) as a network error would. */
export function faultyFetch(drop: (request: Request) => boolean) {
  return async (request: Request): Promise<Response> => {
    if (drop(request))
      throw new TypeError(`fetch failed (dropped by test: ${request.method} ${request.url})`);
    return fetch(request);
  };
}

/** Makes `client.info()` leave out `features`, as a kernel without them would answer. */
export function hideFeatures(client: CapClient, ...features: string[]): CapClient {
  const real = client.info.bind(client);
  client.info = async (options) => {
    const info = await real(options);
    return { ...info, features: info.features.filter((f) => !features.includes(f)) };
  };
  return client;
}

export function clientFor(
  kernel: TestKernel,
  agent: string,
  options: Partial<CapClientOptions> = {},
): CapClient {
  return new CapClient({ baseUrl: kernel.url, token: kernel.agents[agent]!.token, ...options });
}

export interface Recording {
  acks: Array<{ id: string; outcome: string; duplicate: boolean }>;
  releases: Array<{ id: string; attempts: number; delaySeconds: number; reason: string; status: string }>;
  pollErrors: Array<{ code: string; delayMs: number }>;
  renews: string[];
  lost: string[];
  cancels: Array<{ id: string; reason: string }>;
  modes: string[];
  errors: Array<{ stage: string; error: unknown }>;
}

const running = new Set<AbortController>();

/** Stop every driver a test started and left running (call in afterEach, so one failure does not cascade). */
export function stopAllDrivers(): void {
  for (const stop of running) stop.abort();
  running.clear();
}

export function startDriver(
  client: CapClient,
  options: Partial<DriverOptions> & Pick<DriverOptions, "handle">,
) {
  const stop = new AbortController();
  running.add(stop);
  const rec: Recording = {
    acks: [],
    releases: [],
    pollErrors: [],
    renews: [],
    lost: [],
    cancels: [],
    modes: [],
    errors: [],
  };
  let settled: { summary?: DriverSummary; error?: unknown } | undefined;
  const done = runDriver({
    client,
    signal: stop.signal,
    pollIntervalMs: 100,
    onAck: (a) => rec.acks.push({ id: a.event.id, outcome: a.result.outcome, duplicate: a.duplicate }),
    onPollError: (p) =>
      rec.pollErrors.push({ code: (p.error as CapSdkError).code ?? String(p.error), delayMs: p.delayMs }),
    onRenew: (r) => rec.renews.push(r.event.id),
    onRelease: (r) =>
      rec.releases.push({
        id: r.event.id,
        attempts: r.event.attempts,
        delaySeconds: r.delaySeconds,
        reason: r.reason,
        status: r.status,
      }),
    onLeaseLost: (l) => rec.lost.push(l.event.id),
    onCancel: (c) => rec.cancels.push({ id: c.event.id, reason: c.reason }),
    onPollMode: (m) => rec.modes.push(m.mode),
    onError: (e) => rec.errors.push({ stage: e.stage, error: e.error }),
    ...options,
  }).then(
    (summary) => {
      settled = { summary };
      return summary;
    },
    (error: unknown) => {
      settled = { error };
      throw error;
    },
  );
  done.catch(() => {});
  return {
    rec,
    done,
    stop: async (): Promise<DriverSummary> => {
      stop.abort();
      return done;
    },
    get settled() {
      return settled;
    },
  };
}

export { CapSdkError };
