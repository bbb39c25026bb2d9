/**
 * The demo's echo driver against a real kernel over sockets: it answers a mention, and a mention with
 * `sleep N` is a long turn that a human's Stop ends at once — the driver logs the cancel, posts nothing and
 * acks the event `cancelled`. This is the demo's "click Stop in the console" path without the browser.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEchoDriver } from "../../src/demo/echo-driver.js";
import { eventually, startKernelInProcess, type TestKernel } from "../../src/testing/index.js";

describe("the demo's echo driver", () => {
  let k: TestKernel;
  let driver: { stop(): Promise<void> };
  const lines: string[] = [];

  beforeAll(async () => {
    k = await startKernelInProcess({ agents: ["echo"] });
    driver = startEchoDriver({
      baseUrl: k.url,
      token: k.agents.echo!.token,
      name: "echo",
      log: (line) => lines.push(line),
    });
  });
  afterAll(async () => {
    await driver?.stop();
    await k?.stop();
  });

  it("answers a mention with its echo", async () => {
    const id = await k.say("@echo hello there");
    expect((await k.replyTo(id, "echo")).content).toBe("echo: hello there");
  });

  it("stops a sleeping turn when a human cancels it: logged, nothing posted, acked cancelled", async () => {
    const asked = await k.say("@echo sleep 60 then answer");
    const working = await eventually(
      () => lines.find((l) => l.startsWith("echo is working on ")),
      "the driver starts its long turn",
    );
    const eventId = working.split(" ")[4]!;
    expect(await k.cancel(eventId, "wrong task")).toMatchObject({ status: "cancelled", changed: true });
    await eventually(
      () => lines.some((l) => l.includes(`${eventId} was cancelled (wrong task)`)),
      "the driver logs the cancel",
    );
    await eventually(
      () => lines.some((l) => l === `echo acked ${eventId} cancelled (200)`),
      "the cancelled ack",
    );
    const state = await k.state("echo", eventId);
    expect([state?.state, state?.ackedAt !== null]).toEqual(["cancelled", true]);
    // The driver is free again, and never answered the cancelled mention.
    const next = await k.say("@echo still there?");
    expect((await k.replyTo(next, "echo")).content).toBe("echo: still there?");
    const replies = (await k.messages()).filter((m) => m.replyToMessageId === asked);
    expect(replies).toEqual([]);
  });
});
