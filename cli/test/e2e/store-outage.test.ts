/**
 * `commonly agent run` (and the SDK's runDriver under it) through a REAL PostgreSQL outage: the kernel
 * serves a throwaway cluster of this test's own, which is stopped while a turn runs and started again.
 * While it is down the kernel answers 503 store_unavailable; the turn's reply cannot be posted, the
 * driver neither stops nor loses the turn: after the database returns, the message is answered exactly
 * once, its event is acked, and new messages are answered as before. Needs root (pg_createcluster).
 */

import {
  clusterUnavailable,
  eventually,
  PgCluster,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";

const skip = clusterUnavailable ? ` (skipped: ${clusterUnavailable})` : "";

describe.skipIf(clusterUnavailable !== null)(`commonly agent run through a PostgreSQL restart${skip}`, () => {
  let cluster: PgCluster;
  let kernel: TestKernel;
  let c: Commonly;
  beforeAll(async () => {
    cluster = await PgCluster.create();
    kernel = await startKernel({ db: cluster.url, leaseSeconds: 2 });
  }, 60_000);
  afterAll(async () => {
    await c?.dispose();
    await kernel?.stop();
    cluster?.drop();
  });

  it("rides through the outage: the turn in flight is answered once after the database returns", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "rider");
    const run = c.start(["agent", "run", "rider", "--poll-interval", "200ms", "--verbose"], {
      FAKE_CLI_MODE: "slow",
      FAKE_CLI_DELAY_MS: "2500",
    });
    await run.waitFor(/polling for events/);

    const asked = await kernel.say("answer me across the outage");
    await run.waitFor(/spawning: claude/);
    cluster.stop(); // the turn is running; its reply and ack will meet a kernel without a store
    expect((await fetch(`${kernel.url}/readyz`)).status).toBe(503);
    const outage = await run.waitFor(/(turn|post|ack|poll)[ _]failed.*(503|store|unavailable)/i, 30_000);
    cluster.start();

    const reply = await kernel.replyTo(asked, "rider", 60_000);
    expect(reply.content).toMatch(/claude slow reply: .*answer me across the outage/);
    await eventually(
      async () => (await kernel.queue("rider")).every((e) => e.state === "acked"),
      "the event of the outage turn is acked",
      { timeoutMs: 30_000 },
    );
    const after = await kernel.say("and after it?");
    await kernel.replyTo(after, "rider", 30_000);
    const mine = (await kernel.messages()).filter((m) => m.author.name === "rider");
    expect(mine.filter((m) => m.replyToMessageId === asked)).toHaveLength(1);
    expect(mine.filter((m) => m.replyToMessageId === after)).toHaveLength(1);
    expect(run.child.exitCode).toBeNull();
    expect(outage[0]).toBeTruthy();
    await run.stop();
  }, 180_000);
});
