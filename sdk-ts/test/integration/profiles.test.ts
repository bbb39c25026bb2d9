/**
 * runDriver against the reference kernel in both wire profiles: under `--profile production` the kernel
 * sends `chat.mention` / `thread.mention` / `heartbeat` and answers posts and acks with `{success, …}`;
 * the same handler map, written for the CAP names, answers the mention and handles the heartbeat either way.
 */

import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clientFor, startDriver, stopAllDrivers } from "../helpers/drivers.js";

afterEach(stopAllDrivers);

describe.each([
  ["cap", "mention.received", "heartbeat.tick"],
  ["production", "chat.mention", "heartbeat"],
])("runDriver against cap-kernel --profile %s", (profile, mentionType, heartbeatType) => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startKernel({ leaseSeconds: 1, agents: ["echo"], listeners: [], profile });
  });
  afterAll(async () => {
    await kernel?.stop();
  });

  it(`answers an @mention (${mentionType}) and handles a heartbeat (${heartbeatType}) with CAP-named handlers`, async () => {
    const seen: string[] = [];
    const d = startDriver(clientFor(kernel, "echo"), {
      handle: {
        "mention.received": async (event, ctx) => {
          seen.push(event.type);
          await ctx.reply(`echo: ${event.payload.content}`);
        },
        "heartbeat.tick": (event) => {
          seen.push(event.type);
          return { outcome: "no_action" };
        },
      },
    });
    const asked = await kernel.say("@echo ping");
    const reply = await eventually(
      async () => (await kernel.messages()).find((m) => m.content === "echo: @echo ping"),
      "the echo reply is in the pod",
    );
    expect(reply).toMatchObject({ replyToMessageId: asked, author: { name: "echo" } });
    const beat = await kernel.emit("echo", "heartbeat.tick", { tickAt: new Date().toISOString() });
    await eventually(() => d.rec.acks.some((a) => a.id === beat), "the heartbeat is acked");
    expect(seen).toEqual([mentionType, heartbeatType]);
    expect(d.rec.acks.map((a) => a.outcome)).toEqual(["posted", "no_action"]);
    await eventually(
      async () => (await kernel.state("echo", beat))?.state === "acked",
      "settled in the kernel",
    );
    expect(d.rec.errors).toEqual([]);
    await d.stop();
  });

  it("gives a production name to its own handler when the map has one", async () => {
    const got: string[] = [];
    const d = startDriver(clientFor(kernel, "echo"), {
      handle: {
        "mention.received": (event) => void got.push(`cap:${event.type}`),
        [mentionType]: (event) => void got.push(`own:${event.type}`),
      },
    });
    await kernel.say("@echo again");
    await eventually(() => got.length > 0, "the mention is handled");
    expect(got).toEqual([profile === "cap" ? "own:mention.received" : "own:chat.mention"]);
    await d.stop();
  });
});
