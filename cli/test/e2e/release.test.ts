/**
 * `commonly agent run` gives back what it cannot finish, against the reference kernel (30 s leases,
 * `release` advertised), with the real bin as a child process: a failed turn comes back after the
 * retry circuit's delay instead of the lease, Ctrl+C releases the event waiting behind the running
 * turn (and the killed turn itself), and `commonly agent logs` shows every release. Deadlines are
 * shorter than the lease, so no pass can be a lease running out.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";
import { waitUntil } from "../helpers/deadline.js";
import { alive } from "../helpers/fake-cli.js";
import { TestKernel } from "../helpers/kernel.js";

let kernel: TestKernel;
let c: Commonly;
beforeAll(async () => {
  kernel = await new TestKernel({ leaseSeconds: 30 }).start();
});
afterAll(() => kernel?.dispose());
afterEach(async () => {
  await c?.dispose();
});

async function attached(name: string) {
  c = new Commonly();
  await c.login(kernel);
  await c.attach(kernel, "claude", name);
}

describe("commonly agent run releases what it holds", () => {
  it("releases a failed turn with the circuit's delay: the retry runs about a second later, not after the 30 s lease", async () => {
    await attached("rel1");
    const run = c.start(["agent", "run", "rel1", "--poll-interval", "1s"], { FAKE_CLI_MODE: "crash,reply" });
    await run.waitFor(/polling for events/);
    const asked = await kernel.say("please answer on the second try");
    const reply = await kernel.replyTo(asked, "rel1", 15_000);
    expect(reply.content).toMatch(/please answer on the second try$/);
    const released = c.log("rel1").find((e) => e.msg === "released");
    expect(released).toMatchObject({ delaySeconds: 1, attempts: 1, status: "pending", level: "info" });
    expect(released!.reason).toMatch(/^handler failed \(runtime, 1 in a row\): claude exited with code 3/);
    await run.waitFor(/↩ released evt_\S+ \(handler failed .*\); back in 1s/);
    // The driver acks after its reply is posted (ack after the effect): wait for the ack, not the reply.
    const event = await waitUntil(
      async () => (await kernel.queue("rel1")).find((e) => e.state === "acked"),
      "rel1 acks the retried event",
    );
    expect(event).toMatchObject({ state: "acked", attempts: 2 });
    expect(event!.releaseReason).toBe(released!.reason);
    const calls = c.calls({ cli: "claude", event: "call" });
    expect(calls).toHaveLength(2);
    await run.stop();
  });

  it("on ctrl+c releases the event waiting behind the running turn at once, and the killed turn on the second", async () => {
    await attached("rel2");
    // Both messages are queued before the run starts, so its first poll fetches both.
    await kernel.say("first: this turn hangs");
    await kernel.say("second: this one waits behind it");
    const run = c.start(["agent", "run", "rel2"], { FAKE_CLI_MODE: "hang" });
    const hung = await waitUntil(
      () => c.calls({ cli: "claude", event: "hanging" })[0],
      "the fake claude hangs on the first turn",
    );
    const [first, second] = await kernel
      .queue("rel2")
      .then((q) => [...q].sort((a, b) => a.id.localeCompare(b.id)));
    expect([first!.state, second!.state]).toEqual(["leased", "leased"]);

    run.child.kill("SIGINT");
    await run.waitFor(/↩ released \S+ \(not started: the driver is stopping\); back at once/);
    const waiting = await waitUntil(
      async () => (await kernel.queue("rel2")).find((e) => e.state === "pending"),
      "the waiting event is pending again",
    );
    expect(waiting).toMatchObject({ attempts: 1, releaseReason: "not started: the driver is stopping" });
    expect(alive(hung.pid)).toBe(true);

    run.child.kill("SIGINT");
    const exit = await run.exited;
    expect(exit.code).toBe(0);
    expect(alive(hung.pid)).toBe(false);
    const queue = await kernel.queue("rel2");
    expect(queue.map((e) => [e.state, e.attempts, e.ackedAt])).toEqual([
      ["pending", 1, null],
      ["pending", 1, null],
    ]);
    expect(queue.map((e) => e.releaseReason).sort()).toEqual([
      expect.stringMatching(/^handler failed \(runtime, 1 in a row\): /),
      "not started: the driver is stopping",
    ]);
    expect(exit.stdout).toMatch(/stopped: 0 handled, 0 duplicates, 1 failed turns, 2 released/);

    const shown = await c.exec(["agent", "logs", "rel2"]);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split("\n").filter((l) => l.includes("↩ released"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /\[rel2\] ↩ released evt_\S+ \(not started: the driver is stopping\); back at once/,
    );
    expect(lines[1]).toMatch(
      /\[rel2\] ↩ released evt_\S+ \(handler failed \(runtime, 1 in a row\): .*\); back at once/,
    );
  });
});
