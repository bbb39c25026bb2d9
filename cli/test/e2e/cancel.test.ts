/**
 * `commonly agent run` stops a cancelled turn, against the reference kernel (30 s leases, `cancel`
 * advertised), with the real bin as a child process and a fake `claude` that hangs with a child process
 * of its own that ignores SIGTERM: a human's cancel through the pod route ends both (SIGTERM to the
 * process group, SIGKILL after `--cancel-grace`), nothing is posted (or one "stopped" note with
 * `attach --stop-note`), the event is acked `cancelled`, and `commonly agent logs` shows it all; under
 * the `interrupt` double-texting policy a second human message stops the first turn the same way and
 * is answered. Deadlines are shorter than the first renewal of the lease, so the watch did the work.
 */

import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";
import { alive, type FakeCall } from "../helpers/fake-cli.js";

let kernel: TestKernel;
let c: Commonly;
const strays: number[] = [];
beforeAll(async () => {
  kernel = await startKernel({ leaseSeconds: 30 });
});
afterAll(() => kernel?.stop());
afterEach(async () => {
  await c?.dispose();
  // A failed assertion must not leave a fake's child running on the machine.
  for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
});

async function attached(name: string, extra: string[] = []) {
  c = new Commonly();
  await c.login(kernel);
  await c.attach(kernel, "claude", name, extra);
}

/** Waits for the n-th hanging fake claude; remembers its pids for cleanup. */
async function hanging(n = 1): Promise<FakeCall & { child: number }> {
  const call = await eventually(
    () => c.calls({ cli: "claude", event: "hanging" })[n - 1],
    "the fake claude hangs, with its child",
  );
  strays.push(call.pid, call.child!);
  return call as FakeCall & { child: number };
}

/** The pod cancel route, as the console's Stop button calls it. */
async function stop(eventId: string, reason?: string) {
  const { data } = await kernel.api.POST("/api/pods/{podId}/events/{eventId}/cancel", {
    params: { path: { podId: kernel.podId, eventId } },
    body: reason === undefined ? {} : { reason },
  });
  return data!;
}

const gone = (pid: number) =>
  eventually(() => !alive(pid), `process ${pid} is gone`, { timeoutMs: 10_000, everyMs: 50 });

describe("commonly agent run stops a cancelled turn", () => {
  it("kills the fake claude and its child, posts nothing, acks the event cancelled, and logs why", async () => {
    await attached("stop1");
    const run = c.start(["agent", "run", "stop1", "--cancel-grace", "1s"], { FAKE_CLI_MODE: "hang-tree" });
    await run.waitFor(/polling for events/);
    await kernel.say("refactor the payments service");
    const fake = await hanging();
    const [event] = await kernel.queue("stop1");
    expect(event).toMatchObject({ state: "leased", attempts: 1 });

    expect(await stop(event!.id, "wrong repository")).toMatchObject({ status: "cancelled", changed: true });
    await run.waitFor(new RegExp(`■ ${event!.id} was cancelled \\(wrong repository\\)`), 10_000);
    await run.waitFor(/■ claude stopped \(SIGTERM\); nothing posted/, 10_000);
    await run.waitFor(new RegExp(`■ ${event!.id} acked cancelled`), 10_000);
    // The child ignored SIGTERM: the SIGKILL to the group after the 1 s grace ended it.
    await gone(fake.pid);
    await gone(fake.child);

    expect(await kernel.state("stop1", event!.id)).toMatchObject({
      state: "cancelled",
      cancelReason: "wrong repository",
      ackedAt: expect.any(String),
    });
    const replies = (await kernel.messages()).filter((m) => m.author.name === "stop1");
    expect(replies).toEqual([]);

    const exit = await run.stop();
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/stopped: 0 handled, 0 duplicates, 0 failed turns, 0 released, 1 cancelled/);
    const shown = await c.exec(["agent", "logs", "stop1"]);
    const lines = shown.stdout.split("\n").filter((l) => l.includes("■"));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`\\[stop1\\] ■ ${event!.id} was cancelled \\(wrong repository\\): stopping the turn`),
      ),
      expect.stringMatching(/\[stop1\] ■ claude stopped \(SIGTERM\); nothing posted$/),
      expect.stringMatching(new RegExp(`\\[stop1\\] ■ ${event!.id} acked cancelled$`)),
    ]);
    expect(c.log("stop1").find((l) => l.msg === "cancelled")).toMatchObject({
      eventId: event!.id,
      reason: "wrong repository",
      level: "warn",
    });
  });

  it("with attach --stop-note posts one short note, threaded under the message, and nothing else", async () => {
    await attached("stop2", ["--stop-note"]);
    const run = c.start(["agent", "run", "stop2", "--cancel-grace", "1s"], { FAKE_CLI_MODE: "hang-tree" });
    await run.waitFor(/polling for events/);
    const asked = await kernel.say("write the quarterly report");
    const fake = await hanging();
    const [event] = await kernel.queue("stop2");
    await stop(event!.id);
    await run.waitFor(new RegExp(`■ ${event!.id} acked cancelled`), 10_000);
    await gone(fake.child);
    const replies = (await kernel.messages()).filter((m) => m.author.name === "stop2");
    expect(replies.map((m) => [m.content, m.replyToMessageId])).toEqual([["Stopped.", asked]]);
    expect(await run.stop()).toMatchObject({ code: 0 });
    const shown = await c.exec(["agent", "logs", "stop2"]);
    expect(shown.stdout).toMatch(/\[stop2\] ■ claude stopped \(SIGTERM\); posted the stopped note/);
  });

  it("under the interrupt double-texting policy stops the first turn when the human writes again, and answers the second", async () => {
    await attached("stop3");
    await kernel.api.PATCH("/api/registry/pods/{podId}/agents/{agentName}", {
      params: { path: { podId: kernel.podId, agentName: "stop3" } },
      body: { doubleTexting: "interrupt" },
    });
    const run = c.start(["agent", "run", "stop3", "--cancel-grace", "1s"], {
      FAKE_CLI_MODE: "hang-tree,reply",
      FAKE_CLI_REPLY: "here is the second answer",
    });
    await run.waitFor(/polling for events/);
    await kernel.say("first: summarise the whole wiki");
    const fake = await hanging();
    const second = await kernel.say("second: actually, just the intro");
    const reply = await kernel.replyTo(second, "stop3", 20_000);
    expect(reply.content).toBe("here is the second answer");
    await gone(fake.child);
    const queue = await kernel.queue("stop3");
    expect(queue.map((e) => [e.state, (e as { cancelReason?: string }).cancelReason ?? null]).sort()).toEqual(
      [
        ["acked", null],
        ["cancelled", "superseded"],
      ],
    );
    expect(run.stdout).toMatch(/■ evt_\S+ was cancelled \(superseded\)/);
    const replies = (await kernel.messages()).filter((m) => m.author.name === "stop3");
    expect(replies).toHaveLength(1);
    expect(await run.stop()).toMatchObject({ code: 0 });
  });
});
