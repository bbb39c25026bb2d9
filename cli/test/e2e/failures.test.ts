/**
 * Failed and slow turns end to end, on a kernel with 1-second leases so redelivery comes quickly:
 * a crash is not acked and the redelivery succeeds, a hanging CLI is killed at the timeout, and a
 * turn three times longer than the lease keeps its lease (renewed) instead of being redelivered.
 */

import { eventually, type QueuedEvent, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";
import { alive } from "../helpers/fake-cli.js";

let kernel: TestKernel;
let c: Commonly;
beforeAll(async () => {
  kernel = await startKernel({ leaseSeconds: 1 });
});
afterAll(() => kernel?.stop());
afterEach(async () => {
  await c?.dispose();
});

async function started(name: string, extra: string[], env: Record<string, string>) {
  c = new Commonly();
  await c.login(kernel);
  await c.attach(kernel, "claude", name);
  const run = c.start(["agent", "run", name, "--poll-interval", "200ms", "--verbose", ...extra], env);
  await run.waitFor(/polling for events/);
  return run;
}

const ackedEvent = (name: string) =>
  eventually(
    async () => (await kernel.queue(name)).find((e) => e.state === "acked"),
    `${name} acks its event`,
  );

describe("failed and long turns against the reference kernel", () => {
  it("does not ack a crashing CLI; the redelivery (attempts 2) succeeds and posts once", async () => {
    const run = await started("crash1", [], { FAKE_CLI_MODE: "crash,reply" });
    const asked = await kernel.say("please do not crash");
    const reply = await kernel.replyTo(asked, "crash1");
    expect(reply.content).toMatch(/^claude turn 1 of .*: lily \(human\): please do not crash$/);
    expect((await ackedEvent("crash1")).attempts).toBe(2);
    expect(c.calls({ cli: "claude", event: "call" })).toHaveLength(2);
    expect((await kernel.messages()).filter((m) => m.author.name === "crash1")).toHaveLength(1);
    const failed = c.log("crash1").find((e) => e.msg === "turn_failed");
    expect(failed).toMatchObject({
      failureClass: "runtime",
      consecutive: 1,
      adapterKind: "runtime",
      level: "error",
    });
    expect(failed!.eventId).toBe((await kernel.queue("crash1"))[0]!.id);
    expect(failed!.nextDelayMs).toBeGreaterThanOrEqual(200);
    expect(failed!.nextDelayMs).toBeLessThan(240);
    expect(run.stdout).toMatch(/✗ turn failed \(runtime\): claude exited with code 3: panic: fake crash/);
    expect(run.stdout).toContain("(delivery 2)");
    await run.stop();
  });

  it("kills a hanging CLI at the timeout (SIGTERM, then SIGKILL) and does not ack; the retry succeeds", async () => {
    const run = await started("hang1", ["--timeout", "1s"], { FAKE_CLI_MODE: "hang-hard,reply" });
    const asked = await kernel.say("take your time");
    await kernel.replyTo(asked, "hang1");
    expect((await ackedEvent("hang1")).attempts).toBe(2);
    const [hung] = c.calls({ cli: "claude", event: "hanging" });
    expect(c.calls({ cli: "claude", event: "sigterm-ignored" })).toHaveLength(1);
    await eventually(() => !alive(hung!.pid), "the hung fake claude is gone");
    const failed = c.log("hang1").find((e) => e.msg === "turn_failed");
    expect(failed).toMatchObject({ failureClass: "runtime", adapterKind: "timeout" });
    expect(run.stdout).toMatch(/claude timed out after 1000 ms and was killed \(SIGKILL\)/);
    await run.stop();
  });

  it("renews the lease of a turn three times longer than the lease, so it is never redelivered under it", async () => {
    const run = await started("slow1", [], { FAKE_CLI_MODE: "slow", FAKE_CLI_DELAY_MS: "3000" });
    const asked = await kernel.say("think slowly");
    const seen: QueuedEvent[] = [];
    const reply = await eventually(
      async () => {
        const [event] = await kernel.queue("slow1");
        if (event && event.state !== "acked") seen.push(event);
        return (await kernel.messages()).find((m) => m.replyToMessageId === asked);
      },
      "slow1 replies",
      { timeoutMs: 30_000, everyMs: 100 },
    );
    expect(reply.content).toBe("claude slow reply: lily (human): think slowly");
    const whileRunning = seen.filter((e) => e.attempts > 0);
    expect(whileRunning.length).toBeGreaterThanOrEqual(3);
    for (const e of whileRunning) expect(e).toMatchObject({ state: "leased", attempts: 1 });
    expect((await ackedEvent("slow1")).attempts).toBe(1);
    expect(c.calls({ cli: "claude", event: "call" })).toHaveLength(1);
    expect(c.log("slow1").filter((e) => e.msg === "renewed").length).toBeGreaterThanOrEqual(3);
    await run.stop();
  });

  it("on ctrl+c stops polling and lets the turn run; a second ctrl+c kills the CLI; nothing is acked", async () => {
    const run = await started("int1", [], { FAKE_CLI_MODE: "hang" });
    await kernel.say("this will never finish");
    await run.waitFor(/spawning: claude/);
    const hung = await eventually(
      () => c.calls({ cli: "claude", event: "hanging" })[0],
      "the fake claude hangs",
    );
    run.child.kill("SIGINT");
    await run.waitFor(/SIGINT: stopping: the waiting events go back, the running turn gets up to 10 s/);
    expect(alive(hung.pid)).toBe(true);
    run.child.kill("SIGINT");
    const exit = await run.exited;
    expect(exit.code).toBe(0);
    expect(exit.stdout).toContain("SIGINT: killing the running CLI");
    expect(alive(hung.pid)).toBe(false);
    expect((await kernel.queue("int1"))[0]).toMatchObject({ attempts: 1, ackedAt: null });
  });
});
