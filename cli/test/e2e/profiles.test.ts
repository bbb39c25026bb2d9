/**
 * `commonly agent run` (stub adapter) against the reference kernel in both wire profiles: under
 * `--profile production` the kernel sends `chat.mention` and `heartbeat` and answers posts and acks with
 * `{success, …}`; the CLI answers the mention and handles the heartbeat either way.
 */

import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";

describe.each([
  ["cap", "mention.received", "heartbeat.tick"],
  ["production", "chat.mention", "heartbeat"],
])("commonly agent run against cap-kernel --profile %s", (profile, mentionType, heartbeatType) => {
  let kernel: TestKernel;
  let c: Commonly;
  beforeAll(async () => {
    kernel = await startKernel({ profile });
  });
  afterAll(() => kernel?.stop());
  afterEach(async () => {
    await c?.dispose();
  });

  it(`answers an @mention (${mentionType}) and handles a heartbeat (${heartbeatType})`, async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "stub", "p-stub");
    const run = c.start(["agent", "run", "p-stub"]);
    await run.waitFor(/polling for events/);

    const asked = await kernel.say("@p-stub what is 17 * 23?");
    const reply = await kernel.replyTo(asked, "p-stub");
    expect(reply.content).toBe("(stub) received: lily (human) mentioned you: @p-stub what is 17 * 23?");
    await run.waitFor(new RegExp(`← ${mentionType.replace(".", "\\.")} "@p-stub what is 17 \\* 23\\?"`));

    const tick = await kernel.emit("p-stub", "heartbeat.tick", { tickAt: new Date().toISOString() });
    await run.waitFor(new RegExp(`← ${heartbeatType.replace(".", "\\.")}\\n`));
    await eventually(
      async () => (await kernel.queue("p-stub")).find((e) => e.id === tick && e.state === "acked"),
      "the heartbeat is acked",
    );
    const beat = (await kernel.messages()).find((m) => m.content.startsWith("(stub) received: Heartbeat:"));
    expect(beat?.author.name).toBe("p-stub");
    const exit = await run.stop("SIGINT");
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/stopped: 2 handled/);
  });
});
