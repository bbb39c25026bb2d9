/**
 * runDriver with the echo handler of examples/echo-ts against deliberately wrong servers (a table in
 * helpers/wrong-server.ts: acks refused or answered with junk, Prism's batch-ack example, an acked
 * event delivered again, polls that are not event lists). Whatever the server answers, the driver
 * must not spin: after the first second the server sees at most 5 requests in any second, counted
 * on the server side; and it must neither crash nor stop. Each row runs twice, with a short poll
 * interval (the base of every backoff) and with the default options, all rows at once, so the file
 * takes about as long as its longest observation window (7 s).
 */

import { beforeAll, describe, expect, it } from "vitest";
import { CapClient } from "../../src/client.js";
import { runDriver } from "../../src/driver.js";
import type { DriverOptions, HandlerMap } from "../../src/driver-types.js";
import { perSecond, startWrongServer, WRONG_SERVERS, type WrongServer } from "../helpers/wrong-server.js";

/** The handlers of examples/echo-ts/src/echo.ts. */
const ECHO: HandlerMap = {
  "message.posted": async (event, ctx) => {
    await ctx.reply(`echo: ${event.payload.content}`);
  },
  "mention.received": async (event, ctx) => {
    await ctx.reply(`echo: ${event.payload.content}`);
  },
};

const BOUND = 5;

async function observe(row: WrongServer, options: Partial<DriverOptions>, windowMs: number) {
  const server = await startWrongServer(row);
  const stop = new AbortController();
  const backoffs: string[] = [];
  const pollErrors: string[] = [];
  const ackErrors: string[] = [];
  let settled: "resolved" | "rejected" | undefined;
  const done = runDriver({
    client: new CapClient({ baseUrl: server.url, token: `cm_agent_${"c".repeat(64)}` }),
    signal: stop.signal,
    handle: ECHO,
    onBackoff: ({ reason }) => backoffs.push(reason),
    onPollError: ({ error }) => pollErrors.push((error as Error).message),
    onError: ({ stage, error }) => {
      if (stage === "ack") ackErrors.push((error as Error).message);
    },
    ...options,
  }).then(
    (summary) => {
      settled = "resolved";
      return summary;
    },
    (error: unknown) => {
      settled = "rejected";
      throw error;
    },
  );
  await new Promise((r) => setTimeout(r, windowMs));
  const end = Date.now();
  const runningAtEnd = settled === undefined;
  stop.abort();
  await done; // a graceful stop resolves with the summary
  await server.close();
  return { counts: perSecond(server.times, end), runningAtEnd, backoffs, pollErrors, ackErrors };
}

const cases = WRONG_SERVERS.flatMap((row) => [
  { label: `${row.name} (pollIntervalMs 250)`, row, options: { pollIntervalMs: 250 }, windowMs: 4500 },
  // The defaults (5 s base, long-poll) are what examples/echo-ts runs with; 7 s sees a second try.
  { label: `${row.name} (default options)`, row, options: {}, windowMs: 7000 },
]);

// Every row is observed at once (the windows are wall-clock time, not CPU), then judged one by one.
const observations = new Map<string, ReturnType<typeof observe>>();
beforeAll(() => {
  for (const c of cases) {
    const seen = observe(c.row, c.options, c.windowMs);
    seen.catch(() => {});
    observations.set(c.label, seen);
  }
});

describe("runDriver against a deliberately wrong server", () => {
  it.each(cases)(
    "$label: at most 5 requests a second after the first, and it keeps running",
    async ({ label }) => {
      const seen = await observations.get(label)!;
      const report = JSON.stringify({ perSecond: seen.counts, backoffs: seen.backoffs.slice(0, 2) });
      expect(seen.counts.length, report).toBeGreaterThan(1);
      expect(Math.max(...seen.counts.slice(1)), report).toBeLessThanOrEqual(BOUND);
      // It keeps trying: requests after the first second, the driver still running at the end of the window.
      expect(
        seen.counts.slice(1).reduce((a, b) => a + b, 0),
        report,
      ).toBeGreaterThan(0);
      expect(seen.runningAtEnd, report).toBe(true);
      // And it says what went wrong, through the hooks (an ack retried through Retry-After for the whole
      // window is reported by onError before any onBackoff).
      expect(seen.backoffs.length + seen.pollErrors.length + seen.ackErrors.length, report).toBeGreaterThan(
        0,
      );
    },
    20_000,
  );
});
