/**
 * The ADR-005 retry circuit, driven by what a real (fake) CLI prints, against the real kernel: the
 * loop runs in-process so runDriver's clock and sleep can be injected. Waits of 30 s and more (the
 * circuit's) are skipped on a virtual clock and recorded; shorter ones (lease renewal, the quick
 * runtime retries) are real. Redeliveries are real too: the kernel's 1-second lease must end first.
 * The kernel's `release` is hidden from /info here: a release delay runs on the kernel's real clock,
 * so a virtually skipped 15-minute circuit would meet an event still delayed for 15 real minutes.
 * Release with the circuit's delay is tested in release.test.ts, on real time.
 */
import { delimiter } from "node:path";
import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getAdapter } from "../../src/adapters/registry.js";
import { createReporter } from "../../src/loop/reporter.js";
import { runAgent } from "../../src/loop/run-agent.js";
import { createLogger } from "../../src/state/logger.js";
import type { Terminal } from "../../src/ui/terminal.js";
import { Commonly } from "../helpers/commonly.js";
import { FIXTURE_BIN } from "../helpers/fake-cli.js";

let kernel: TestKernel;
let c: Commonly;
beforeAll(async () => {
  kernel = await startKernel({ leaseSeconds: 1, maxAttempts: 20 });
});
afterAll(() => kernel?.stop());
afterEach(async () => {
  await c?.dispose();
});

const SKIP_FROM_MS = 30_000;

function virtualWaits() {
  let offset = 0;
  const skipped: number[] = [];
  return {
    skipped,
    clock: () => Date.now() + offset,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted || ms <= 0) return resolve();
        if (ms >= SKIP_FROM_MS) {
          skipped.push(ms);
          offset += ms;
          return resolve();
        }
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener("abort", done, { once: true });
      }),
  };
}

/** A fetch whose /info answers leave out `release` (see the header). */
const withoutRelease = async (request: Request): Promise<Response> => {
  const response = await fetch(request);
  if (!new URL(request.url).pathname.endsWith("/info") || !response.ok) return response;
  const info = (await response.json()) as { features: string[] };
  const features = info.features.filter((f) => f !== "release");
  return Response.json({ ...info, features }, { status: response.status, headers: response.headers });
};

const quietTerminal: Terminal = { interactive: false, line() {}, spin: () => ({ stop() {} }) };

describe("retry circuit on CLI failures (in-process loop, injected clock and sleep)", () => {
  it("opens on rate-limit text at 1 min doubling, on quota at 15 min, on the third runtime failure at 1 min", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "circ1");
    const { runtimeToken } = c.tokenFile("circ1");
    const waits = virtualWaits();
    const stop = new AbortController();
    const report = createReporter({
      name: "circ1",
      logger: createLogger({ home: c.home, agentName: "circ1" }),
      terminal: quietTerminal,
    });
    const loop = runAgent({
      name: "circ1",
      home: c.home,
      baseUrl: kernel.url,
      token: runtimeToken,
      adapter: getAdapter("claude"),
      adapterName: "claude",
      cwd: c.fakeState,
      env: {
        ...process.env,
        PATH: `${FIXTURE_BIN}${delimiter}${process.env.PATH ?? ""}`,
        FAKE_CLI_STATE_DIR: c.fakeState,
        FAKE_CLI_MODE: "ratelimit,ratelimit,reply,quota,reply,crash,crash,crash,reply",
      },
      timeoutMs: 20_000,
      report,
      signal: stop.signal,
      pollIntervalMs: 100,
      waitSeconds: 5,
      clock: waits.clock,
      sleep: waits.sleep,
      fetch: withoutRelease,
    });

    const limited = await kernel.say("first: the provider is rate limited");
    await kernel.replyTo(limited, "circ1");
    const broke = await kernel.say("second: the account ran out of credit");
    await kernel.replyTo(broke, "circ1");
    const flaky = await kernel.say("third: the CLI keeps crashing");
    await kernel.replyTo(flaky, "circ1");
    stop.abort();
    const summary = await loop;

    const failures = c.log("circ1").filter((e) => e.msg === "turn_failed");
    const [r1, r2, q1, x1, x2, x3] = failures;
    expect(failures).toHaveLength(6);
    // The agent's stable offset, read off the first delay: 0–20 %, the same for every later delay.
    const jitter = (r1!.nextDelayMs as number) / 60_000 - 1;
    expect(jitter).toBeGreaterThanOrEqual(0);
    expect(jitter).toBeLessThan(0.2);
    // r1 is rounded, so the jitter read off it is exact to 0.5/60000: allow that error, scaled.
    const expectDelay = (entry: Record<string, unknown> | undefined, base: number) => {
      const want = base * (1 + jitter);
      expect(Math.abs((entry!.nextDelayMs as number) - want)).toBeLessThanOrEqual(base / 120_000 + 1);
    };
    expect(r1).toMatchObject({ failureClass: "rate_limit", consecutive: 1, circuitOpen: true });
    expect(r2).toMatchObject({ failureClass: "rate_limit", consecutive: 2, circuitOpen: true });
    expectDelay(r2, 120_000);
    expect(r1!.eventId).toBe(r2!.eventId);
    // A completed turn reset the streak: the quota failure is the first of a new one.
    expect(q1).toMatchObject({ failureClass: "quota", consecutive: 1, circuitOpen: true });
    expectDelay(q1, 900_000);
    expect(x1).toMatchObject({ failureClass: "runtime", consecutive: 1, circuitOpen: false });
    expectDelay(x1, 100);
    expect(x2).toMatchObject({ failureClass: "runtime", consecutive: 2, circuitOpen: false });
    expectDelay(x2, 200);
    expect(x3).toMatchObject({ failureClass: "runtime", consecutive: 3, circuitOpen: true });
    expectDelay(x3, 60_000);
    for (const f of failures) expect(f.text).toMatch(/not acked; (retry|circuit open), next try in/);
    // The loop actually waited (virtually) exactly the circuit's delays, in order.
    expect(waits.skipped).toEqual([r1, r2, q1, x3].map((f) => f!.nextDelayMs));
    expect(summary).toMatchObject({ handled: 3, failures: 6 });
    await eventually(
      async () => (await kernel.queue("circ1")).every((e) => e.state === "acked"),
      "all acked",
    );
    expect((await kernel.queue("circ1")).map((e) => e.attempts)).toEqual([4, 2, 3]);
  });
});
