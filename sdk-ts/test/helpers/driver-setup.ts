/**
 * `runDriver` on the in-memory fake kernel and virtual time, for driver unit tests: the kernel, the
 * stop controller, a log of hook calls, and the stable delay offset of the test agent.
 */
import { afterEach } from "vitest";
import { runDriver } from "../../src/driver.js";
import type { DriverOptions, DriverSummary } from "../../src/driver-types.js";
import { stableJitter } from "../../src/internal/client/time.js";
import { FakeKernel } from "./fake-kernel.js";
import { VirtualTime } from "./virtual-time.js";

export let time: VirtualTime;
afterEach(() => time?.stop());

export function setup(overrides: Partial<DriverOptions> = {}) {
  time = new VirtualTime();
  const kernel = new FakeKernel(time);
  const stop = new AbortController();
  const log: string[] = [];
  const options = (extra: Partial<DriverOptions>): DriverOptions => ({
    client: kernel.client,
    handle: () => {},
    signal: stop.signal,
    clock: time.clock,
    sleep: time.sleep,
    pollIntervalMs: 1000,
    agentKey: "agent-under-test",
    onPollMode: (m) => log.push(`mode:${m.mode}`),
    onCircuit: (c) => log.push(`circuit:${c.failureClass}:${c.consecutive}:${c.delayMs}`),
    onLeaseLost: (l) => log.push(`lost:${l.event.id}`),
    onRenew: (r) => log.push(`renew:${r.event.id}`),
    onRelease: (r) => log.push(`release:${r.event.id}:${r.delaySeconds}`),
    ...overrides,
    ...extra,
  });
  let running: Promise<DriverSummary> | undefined;
  return {
    kernel,
    stop,
    log,
    start(extra: Partial<DriverOptions> = {}) {
      running = runDriver(options(extra));
      return running;
    },
    async finish(): Promise<DriverSummary> {
      stop.abort();
      return running!;
    },
  };
}

// The stable per-agent offset every delay of this test agent carries.
export const JITTER = stableJitter("agent-under-test");
export const j = (ms: number) => Math.round(ms * (1 + JITTER));
