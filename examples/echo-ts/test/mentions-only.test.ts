/**
 * The example as the quickstarts run it: agent `echo` beside a reader's own `helper`, both this driver,
 * in one pod of a real kernel. Each answers only a mention of itself, once, and its reply mentions no one,
 * so a message never starts a chain. "Nothing more will come" is proven, not waited for: once both queues
 * hold no open event, no further post can be produced (a post's events are written with it).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  eventually,
  type Spawned,
  spawnProcess,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const example = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "echo.js");
let kernel: TestKernel;
const drivers: Spawned[] = [];

beforeAll(async () => {
  kernel = await startKernel({ agents: ["echo", "helper"] });
  for (const name of ["echo", "helper"])
    drivers.push(
      spawnProcess(process.execPath, [example], {
        env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents[name]!.token },
        name: `examples/echo-ts as ${name}`,
      }),
    );
});

afterAll(async () => {
  for (const d of drivers) await d.stop();
  await kernel?.stop();
});

/** Both agents have acked (or failed) every event they were given: the pod is quiet for good. */
async function settled(): Promise<boolean> {
  for (const agent of ["echo", "helper"])
    if ((await kernel.queue(agent)).some((e) => e.state !== "acked" && e.state !== "failed")) return false;
  return true;
}

async function repliesTo(messageId: string) {
  return (await kernel.messages()).filter((m) => m.replyToMessageId === messageId);
}

describe("examples/echo-ts as echo and helper in one pod", () => {
  it("leaves a human message that mentions no one unanswered (acked as skipped by both)", async () => {
    const plain = await kernel.say("good morning, everyone");
    await eventually(async () => {
      const states = await Promise.all(
        ["echo", "helper"].map(async (a) =>
          (await kernel.queue(a)).find((e) => e.payload.messageId === plain),
        ),
      );
      return states.every((e) => e?.type === "message.posted" && e.state === "acked") && (await settled());
    }, "both agents acked the plain message");
    expect(await repliesTo(plain)).toEqual([]);
  });

  it("answers @echo exactly once, from echo, without mentioning anyone", async () => {
    const asked = await kernel.say("@echo hi");
    const reply = await kernel.replyTo(asked, "echo");
    expect(reply.content).toBe("echo: hi");
    await eventually(settled, "both queues settled");
    expect(await repliesTo(asked)).toHaveLength(1);
  });

  it("answers @helper exactly once, from helper, and echo stays silent", async () => {
    const asked = await kernel.say("@helper hi");
    const reply = await kernel.replyTo(asked, "helper");
    expect(reply.content).toBe("echo: hi");
    await eventually(settled, "both queues settled");
    expect((await repliesTo(asked)).map((m) => m.author.name)).toEqual(["helper"]);
  });

  it("starts no chain when a human mentions both: one reply each, and neither reply mentions an agent", async () => {
    const before = (await kernel.messages()).length;
    const asked = await kernel.say("@echo please ask @helper about lunch");
    await kernel.replyTo(asked, "echo");
    await kernel.replyTo(asked, "helper");
    await eventually(settled, "both queues settled");
    const replies = await repliesTo(asked);
    expect(replies.map((m) => m.author.name).sort()).toEqual(["echo", "helper"]);
    expect(replies.find((m) => m.author.name === "echo")!.content).toBe(
      "echo: please ask helper about lunch",
    );
    expect(replies.find((m) => m.author.name === "helper")!.content).toBe(
      "echo: echo please ask about lunch",
    );
    // The human's message and the two replies: nothing else was posted.
    expect((await kernel.messages()).length).toBe(before + 3);
  });
});
