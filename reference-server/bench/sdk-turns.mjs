/**
 * Long-running turns driven by the SDK's `runDriver` (`@commonly/cap-sdk`, read from its workspace build as
 * sdk-driver.mjs does) with its defaults, for the cancel scenario: the handler holds its delivery until
 * `ctx.signal` aborts — a cancel, or the end of the measurement — while the driver renews the lease and
 * watches the delivery for a cancel (`GET /events/{id}/cancellation`, feature `cancel`) as any SDK driver
 * does. Each driver has its own `CapClient` on Node's fetch, wrapped to count requests by route and to tell
 * the scenario when a watch request leaves (so a cancel can be sent to a watch that is parked).
 *
 * Must never outlive its scenario: `stop()` aborts the driver and every handler it runs.
 */
import { pathToFileURL } from "node:url";
import { sdkIndex } from "./sdk-driver.mjs";

/** The CAP route of an SDK request, for the counts: watch, renew, poll, ack or other. */
export function routeKind(url) {
  const path = new URL(url).pathname;
  if (path.endsWith("/cancellation")) return "watch";
  if (path.endsWith("/renew")) return "renew";
  if (path.endsWith("/ack")) return "ack";
  if (path.endsWith("/events")) return "poll";
  return "other";
}

/**
 * One agent's `runDriver`. `onTurn(event, ctx)` is called as each handler starts and may return a promise
 * the handler also waits on; the handler returns once `ctx.signal` aborts or `stop()` is called.
 * `onRequest(kind, url)` sees every request as it leaves. Resolves with {counts, watchTimes (performance.now()
 * of each watch request sent), failures, stop()}.
 */
export async function startSdkTurns(
  baseUrl,
  token,
  { onTurn = () => undefined, onRequest = () => undefined, onCancel = () => undefined } = {},
) {
  const { CapClient, runDriver } = await import(pathToFileURL(sdkIndex).href);
  const counts = { watch: 0, renew: 0, poll: 0, ack: 0, other: 0 };
  const watchTimes = [];
  const failures = [];
  const client = new CapClient({
    baseUrl,
    token,
    fetch: (request) => {
      const kind = routeKind(request.url);
      counts[kind]++;
      if (kind === "watch") watchTimes.push(performance.now());
      onRequest(kind, request.url);
      return fetch(request);
    },
  });
  const stopping = new AbortController();
  const ended = new Promise((resolve) => stopping.signal.addEventListener("abort", resolve, { once: true }));
  const done = runDriver({
    client,
    signal: stopping.signal,
    handle: async (event, ctx) => {
      const aborted = new Promise((resolve) => {
        if (ctx.signal.aborted) resolve();
        else ctx.signal.addEventListener("abort", resolve, { once: true });
      });
      await Promise.race([Promise.all([aborted, onTurn(event, ctx)]), ended]);
      return { outcome: "no_action" };
    },
    onCancel,
    // A driver whose requests fail measures nothing: the scenario reports every failure it saw.
    onError: ({ stage, error }) => {
      if (!stopping.signal.aborted) failures.push(`${stage}: ${error?.message ?? error}`);
    },
    onPollError: ({ error }) => {
      if (!stopping.signal.aborted) failures.push(`poll: ${error?.message ?? error}`);
    },
  });
  return {
    counts,
    watchTimes,
    failures,
    async stop() {
      stopping.abort();
      await done;
    },
  };
}
