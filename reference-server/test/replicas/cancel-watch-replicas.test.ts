/**
 * The cancellation watch across kernel processes (feature `cancel`, CAP-CANCEL-10): a watch held by one
 * `cap-kernel serve` process answers a cancel taken by another — two replicas of one PostgreSQL database
 * (the cancel's NOTIFY wakes it), and two processes sharing one SQLite file (the watch hub's sweep after
 * the other process's commit wakes it). A double-texting interrupt through one replica wakes the watch on
 * the other too. Real processes, real sockets; a throwaway database or file each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, type TestKernel } from "../../src/testing/index.js";
import {
  call,
  createDatabase,
  dropDatabase,
  emit,
  eventually,
  KernelProcess,
  PG_URL,
  type Provisioned,
  poll,
  provision,
  SKIP_REASON,
  stopAll,
} from "./harness.js";

const CAP = "/api/agents/runtime";
/** Far beyond the answer the tests wait for: a watch answered before it is woken, not by its own end. */
const WAIT_SECONDS = 25;

/** Holds a watch on `watcher`, cancels through `canceller`, and returns the watch's answer and its delay. */
async function cancelSeenAcross(o: {
  watcher: string;
  canceller: string;
  agentToken: string;
  humanToken: string;
  podId: string;
  eventId: string;
  watchCount: () => Promise<number>;
}) {
  const watching = call(
    o.watcher,
    "GET",
    `${CAP}/events/${o.eventId}/cancellation?attempts=1&waitSeconds=${WAIT_SECONDS}`,
    o.agentToken,
  );
  await eventually(async () => (await o.watchCount()) > 0, "the watch waits on the other process");
  const at = Date.now();
  const cancelled = await call(
    o.canceller,
    "POST",
    `/api/pods/${o.podId}/events/${o.eventId}/cancel`,
    o.humanToken,
    { reason: "from the other side" },
  );
  expect(cancelled.body).toEqual({ ok: true, status: "cancelled", changed: true });
  const answer = await watching;
  return { answer, afterMs: Date.now() - at };
}

describe.skipIf(!PG_URL)(`the cancellation watch on two PostgreSQL replicas${SKIP_REASON}`, () => {
  let db = "";
  let r1: KernelProcess;
  let r2: KernelProcess;
  let world: Provisioned;
  const human = () => world.users[0]!.token;
  const alpha = () => world.agents.find((a) => a.name === "alpha")!;

  beforeAll(async () => {
    db = await createDatabase("cap_cancel_replicas");
    world = await provision(db, ["--admin", "ops", "--pod", "lab", "--agent", "alpha@lab"]);
    [r1, r2] = await Promise.all([
      KernelProcess.start(db, { leaseSeconds: 30 }),
      KernelProcess.start(db, { leaseSeconds: 30 }),
    ]);
  });
  afterAll(async () => {
    await stopAll();
    if (db) await dropDatabase(db);
  });

  it("CAP-CANCEL-10: answers a watch on replica 2 when the cancel is taken by replica 1", async () => {
    const a = alpha();
    const eventId = await emit(r1.url, human(), { agentName: "alpha", podId: a.podId });
    expect((await poll(r2.url, a.token, 10, 0)).map((e) => e.id)).toContain(eventId);
    const { answer, afterMs } = await cancelSeenAcross({
      watcher: r2.url,
      canceller: r1.url,
      agentToken: a.token,
      humanToken: human(),
      podId: a.podId,
      eventId,
      watchCount: () => r2.metric("cap_cancel_watches_waiting"),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ cancelRequested: true, reason: "from the other side" });
    // Woken by the NOTIFY, not by the end of its wait (the 1 s bound is measured by the bench).
    expect(afterMs).toBeLessThan((WAIT_SECONDS - 5) * 1000);
    expect(await r1.metric('cap_events_cancelled_total{reason="requested"}')).toBe(1);
  });

  it("CAP-CANCEL-14: a human's message through replica 1 interrupts a delivery watched on replica 2", async () => {
    const a = alpha();
    await call(r1.url, "PATCH", `/api/registry/pods/${a.podId}/agents/alpha`, human(), {
      doubleTexting: "interrupt",
    });
    const eventId = await emit(r1.url, human(), { agentName: "alpha", podId: a.podId });
    expect((await poll(r2.url, a.token, 10, 0)).map((e) => e.id)).toContain(eventId);
    const watching = call(
      r2.url,
      "GET",
      `${CAP}/events/${eventId}/cancellation?attempts=1&waitSeconds=${WAIT_SECONDS}`,
      a.token,
    );
    await eventually(async () => (await r2.metric("cap_cancel_watches_waiting")) > 0, "the watch waits");
    const posted = await call(r1.url, "POST", `/api/pods/${a.podId}/messages`, human(), {
      content: "never mind, do this instead",
    });
    expect(posted.status).toBe(201);
    expect((await watching).body).toMatchObject({ cancelRequested: true, reason: "superseded" });
    const [next] = await poll(r2.url, a.token, 10, 0);
    expect(next).toMatchObject({ type: "message.posted", supersedes: [eventId] });
  });
});

describe("the cancellation watch on two processes sharing one SQLite file", () => {
  let k: TestKernel;
  let other: KernelProcess;

  beforeAll(async () => {
    k = await startKernel({ agents: ["alpha"] });
    other = await KernelProcess.start(k.db, { leaseSeconds: 30 });
  });
  afterAll(async () => {
    await other?.stop();
    await k?.stop();
  });

  it("CAP-CANCEL-10: answers a watch in one process when the other process takes the cancel", async () => {
    const token = k.agents.alpha!.token;
    const eventId = await k.emit("alpha", "task.assigned", { taskId: "t", title: "long" });
    expect((await poll(other.url, token, 10, 0)).map((e) => e.id)).toContain(eventId);
    const { answer, afterMs } = await cancelSeenAcross({
      watcher: other.url,
      canceller: k.url,
      agentToken: token,
      humanToken: k.human.token,
      podId: k.podId,
      eventId,
      watchCount: () => other.metric("cap_cancel_watches_waiting"),
    });
    expect(answer.body).toMatchObject({ cancelRequested: true, reason: "from the other side" });
    // Found by the hub's sweep after the other process's commit (every longPollBackstopMs), not at the
    // watch's end.
    expect(afterMs).toBeLessThan((WAIT_SECONDS - 5) * 1000);
  });
});
