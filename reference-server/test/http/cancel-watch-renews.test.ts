/**
 * CAP-CANCEL-9's renew: a watch that ends without a cancel renews the delivery's lease, and is held no
 * longer than until a third of the lease is left, so a driver that only watches keeps its delivery. Short
 * leases, on SQLite and on PostgreSQL, over sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallAnswer,
  call,
  eventually,
  startKernelInProcess,
  type TestKernel,
} from "../../src/testing/index.js";
import { kernelDbs } from "../helpers/kernel-dbs.js";

const CAP = "/api/agents/runtime";
const LEASE_SECONDS = 3;

const STORES = kernelDbs("cap_watch_renews");

for (const [name, skip, makeDb] of STORES) {
  describe.skipIf(skip !== undefined)(`the cancel watch renews on ${name}${skip ? ` (${skip})` : ""}`, () => {
    let k: TestKernel;
    let drop: () => Promise<void> = async () => {};
    const as = (method: string, path: string, body?: unknown): Promise<CallAnswer> =>
      call(k.url, method, `${CAP}${path}`, k.agents.alpha!.token, body);

    beforeAll(async () => {
      const d = await makeDb();
      drop = d.drop;
      k = await startKernelInProcess({ db: d.db, agents: ["alpha"], leaseSeconds: LEASE_SECONDS });
    });
    afterAll(async () => {
      await k?.stop();
      await drop();
    });

    it("CAP-CANCEL-9: a watch with nothing happening answers before the lease ends, with the lease renewed", async () => {
      const id = await k.emit("alpha", "task.assigned", { taskId: "t", title: "do" });
      const polled = await as("GET", "/events?limit=1");
      const claimedUntil = Date.parse(polled.body.events[0].leaseExpiresAt);
      // The watch asks for 25 s, but is answered while a third of the lease is left, renewed from then.
      const r = await as("GET", `/events/${id}/cancellation?attempts=1&waitSeconds=25`);
      expect(r.body.cancelRequested).toBe(false);
      const renewedUntil = Date.parse(r.body.leaseExpiresAt);
      expect(renewedUntil).toBeGreaterThan(claimedUntil);
      expect(Date.parse((await k.state("alpha", id))!.leaseExpiresAt!)).toBe(renewedUntil);
      expect((await as("POST", `/events/${id}/ack`, {})).status).toBe(200);
    });

    it("CAP-CANCEL-9: a driver that only watches keeps its delivery for several leases, then acks it once", async () => {
      const id = await k.emit("alpha", "task.assigned", { taskId: "t2", title: "long turn" });
      const polled = await as("GET", "/events?limit=1");
      expect(polled.body.events.map((e: { id: string }) => e.id)).toEqual([id]);
      const end = Date.now() + 3 * LEASE_SECONDS * 1000;
      let watches = 0;
      while (Date.now() < end) {
        const r = await as("GET", `/events/${id}/cancellation?attempts=1&waitSeconds=25`);
        expect([r.status, r.body.cancelRequested]).toEqual([200, false]);
        watches++;
        // Nobody else gets the event while the watches keep its lease.
        expect((await as("GET", "/events?limit=10")).body.events).toEqual([]);
      }
      expect(watches).toBeGreaterThanOrEqual(3);
      expect((await as("POST", `/events/${id}/ack`, {})).status).toBe(200);
      const state = await eventually(() => k.state("alpha", id), "the event is listed");
      expect([state.state, state.attempts]).toEqual(["acked", 1]);
    });

    it("CAP-CANCEL-11: a watch of a delivery whose lease ended unwatched is 409 lease_lost, and renews nothing", async () => {
      const id = await k.emit("alpha", "task.assigned", { taskId: "t3", title: "dropped" });
      await as("GET", "/events?limit=1");
      // The lease ends with nobody watching or renewing; a poll claims delivery 2.
      const again = await eventually(async () => {
        const p = await as("GET", "/events?limit=1");
        return p.body.events.length > 0 ? p.body.events[0] : undefined;
      }, "the event is delivered again");
      expect([again.id, again.attempts]).toEqual([id, 2]);
      const r = await as("GET", `/events/${id}/cancellation?attempts=1&waitSeconds=0`);
      expect([r.status, r.body.code]).toEqual([409, "lease_lost"]);
      expect((await as("POST", `/events/${id}/ack`, {})).status).toBe(200);
    });
  });
}
