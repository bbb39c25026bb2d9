/**
 * The SDK-shaped drain driver: `runDriver` from `@commonly/cap-sdk` with its defaults — /info first, then
 * long-polls sized by the SDK (10 events, growing to 50 while its handlers keep up), each with a fresh
 * `pollId`, batch acks where /info advertises them, lease renewals — and a handler that answers at once,
 * as the bench's own drivers do. Each agent gets its own `CapClient` on Node's fetch, counted by a wrapper
 * so the scenario can report requests.
 *
 * The SDK is read from its build in the workspace (`sdk-ts/dist`), not as a dependency of this package:
 * the SDK's tests depend on the kernel, and a dependency back would be a cycle. `turbo.json` builds the SDK
 * before `bench`. Must never outlive a drain: each driver stops when its count is acked or at the deadline.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const sdkIndex = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "sdk-ts",
  "dist",
  "index.js",
);
const RESULT = { outcome: "no_action" };

/** Why the SDK drain cannot run, or null when the SDK is built. */
export function sdkMissing() {
  return existsSync(sdkIndex) ? null : `${sdkIndex} does not exist (build @commonly/cap-sdk first)`;
}

/**
 * One agent driven by the SDK: `drain({expected, deadline})` runs a `runDriver` until `expected` events are
 * acked (or `deadline`, performance.now(), passes) and resolves {acked, lastAckAt}; `requests` counts the
 * HTTP requests of every drain so far.
 */
export async function sdkAgent(baseUrl, token) {
  const { CapClient, runDriver } = await import(pathToFileURL(sdkIndex).href);
  let requests = 0;
  const client = new CapClient({
    baseUrl,
    token,
    fetch: (request) => {
      requests++;
      return fetch(request);
    },
  });
  return {
    get requests() {
      return requests;
    },
    close: () => undefined,
    async drain({ expected, deadline }) {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - performance.now()));
      let acked = 0;
      let lastAckAt = performance.now();
      let failure = null;
      try {
        await runDriver({
          client,
          signal: stop.signal,
          handle: () => RESULT,
          onAck: () => {
            acked++;
            lastAckAt = performance.now();
            if (acked >= expected) stop.abort();
          },
          // A drain whose requests fail is no measurement: the first failure ends it and is reported.
          onError: ({ stage, error }) => {
            failure ??= `${stage}: ${error?.message ?? error}`;
            stop.abort();
          },
          onPollError: ({ error }) => {
            failure ??= `poll: ${error?.message ?? error}`;
            stop.abort();
          },
        });
      } finally {
        clearTimeout(timer);
      }
      if (failure) throw new Error(`SDK driver: ${failure}`);
      return { acked, lastAckAt };
    },
  };
}
