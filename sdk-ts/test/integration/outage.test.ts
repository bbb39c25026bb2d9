/**
 * A kernel outage mid-run: the kernel process is killed while a handler runs and restarted on the
 * same port and database. The driver must back off (doubling from the poll interval), never stop,
 * pick up new work after the restart, and re-ack the event whose ack was lost without rerunning it.
 */

import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFor, startDriver, stopAllDrivers } from "../helpers/drivers.js";

let kernel: TestKernel;
beforeAll(async () => {
  kernel = await startKernel({ leaseSeconds: 1, agents: ["worker"] });
});
afterAll(async () => {
  stopAllDrivers();
  await kernel?.stop();
});

describe("runDriver through a kernel outage", () => {
  it("backs off while the kernel is down, keeps running, and resumes after a restart", async () => {
    const held = await kernel.emit("worker", "task.assigned", {
      taskId: "held",
      title: "held across the outage",
    });
    const calls = new Map<string, number>();
    let gate!: () => void;
    let holding = false;
    const d = startDriver(clientFor(kernel, "worker", { retry: { retries: 1, baseDelayMs: 50 } }), {
      pollIntervalMs: 100,
      handle: async (event) => {
        calls.set(event.id, (calls.get(event.id) ?? 0) + 1);
        if (event.id === held) {
          holding = true;
          await new Promise<void>((resolve) => (gate = resolve));
        }
      },
    });
    await eventually(() => holding, "the driver is handling the held event");

    await kernel.kill("SIGKILL");
    gate(); // the handler completes while the kernel is down: its ack cannot land
    await eventually(() => d.rec.pollErrors.length >= 4, "four failed polls while the kernel is down", {
      timeoutMs: 20_000,
    });
    expect(d.rec.errors.some((e) => e.stage === "ack")).toBe(true);
    expect(d.rec.pollErrors.every((p) => p.code === "network")).toBe(true);
    const delays = d.rec.pollErrors.map((p) => p.delayMs);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeCloseTo(delays[i - 1]! * 2, -1);
    expect(delays[0]).toBeGreaterThanOrEqual(100);
    // The agent's offset is in [0, 0.2) of the interval and the delay is rounded to a millisecond, so
    // 120 itself is reachable (an offset of 0.195 or more, about one token in forty).
    expect(delays[0]).toBeLessThanOrEqual(120);
    expect(d.settled).toBeUndefined();

    await kernel.restart();
    const fresh = await kernel.emit("worker", "task.assigned", {
      taskId: "fresh",
      title: "after the restart",
    });
    await eventually(
      () => d.rec.acks.some((a) => a.id === fresh),
      "the driver handles new work after the restart",
      {
        timeoutMs: 30_000,
      },
    );
    await eventually(
      async () => (await kernel.state("worker", held))?.state === "acked",
      "the held event is acked",
      {
        timeoutMs: 20_000,
      },
    );
    expect(calls.get(held)).toBe(1);
    expect(d.rec.acks.find((a) => a.id === held)).toMatchObject({ duplicate: true });
    expect(d.settled).toBeUndefined();
    expect(await d.stop()).toMatchObject({ handled: 2, duplicates: 1, failures: 0 });
  });
});
