/**
 * Feature `cancel` on a real kernel over sockets, on SQLite and on PostgreSQL: who may cancel (the agent,
 * a member, an operator; nobody else), what a cancel does to the event and to every verb after it, the
 * cancellation watch, bad input, idempotency, the operator view, /info and /metrics. Each test names the
 * CAP-CANCEL requirement it holds the kernel to. Double texting is double-texting.test.ts; the watch woken
 * across replicas and processes is test/replicas/cancel-watch-replicas.test.ts.
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
const MAX_WATCHES = 2;

const STORES = kernelDbs("cap_cancel");

for (const [name, skip, makeDb] of STORES) {
  describe.skipIf(skip !== undefined)(`feature cancel on ${name}${skip ? ` (${skip})` : ""}`, () => {
    let k: TestKernel;
    let drop: () => Promise<void> = async () => {};
    const token = (agent: string) => k.agents[agent]!.token;
    const as = (agent: string, method: string, path: string, body?: unknown): Promise<CallAnswer> =>
      call(k.url, method, `${CAP}${path}`, token(agent), body);
    const emit = (agent = "alpha") => k.emit(agent, "task.assigned", { taskId: "t", title: "do" });
    /** An event of `agent`, polled: its delivery 1 is held. */
    const held = async (agent = "alpha") => {
      const id = await emit(agent);
      const polled = await as(agent, "GET", "/events?limit=50");
      expect(polled.body.events.map((e: { id: string }) => e.id)).toContain(id);
      return id;
    };
    const cancel = (id: string, body?: unknown, agent = "alpha") =>
      as(agent, "POST", `/events/${id}/cancel`, body);
    const watch = (id: string, query: string, agent = "alpha") =>
      as(agent, "GET", `/events/${id}/cancellation?${query}`);
    const queued = async (id: string, agent = "alpha") =>
      eventually(() => k.state(agent, id), `${id} is listed`);

    beforeAll(async () => {
      const d = await makeDb();
      drop = d.drop;
      k = await startKernelInProcess({
        db: d.db,
        agents: ["alpha", "beta"],
        maxAttempts: 2,
        config: { limits: { maxCancelWatchesPerToken: MAX_WATCHES } },
      });
    });
    afterAll(async () => {
      await k?.stop();
      await drop();
    });

    it("CAP-CANCEL-1: the agent's own cancel answers {ok, status, changed}; a body is optional", async () => {
      const id = await emit();
      const r = await cancel(id);
      expect([r.status, r.body]).toEqual([200, { ok: true, status: "cancelled", changed: true }]);
      expect((await queued(id)).cancelReason).toBe("requested");
      const withReason = await cancel(await emit(), { reason: "wrong task" });
      expect(withReason.body).toEqual({ ok: true, status: "cancelled", changed: true });
    });

    it("CAP-CANCEL-1: another identity's or an unknown event is 404 event_not_found, and stays as it was", async () => {
      const id = await held("alpha");
      for (const r of [await cancel(id, {}, "beta"), await cancel("evt_unknown")])
        expect([r.status, r.body.code]).toEqual([404, "event_not_found"]);
      expect((await queued(id)).state).toBe("leased");
    });

    it("CAP-CANCEL-1: a reason that is not a string of at most 500 characters is 400 validation_failed", async () => {
      const id = await emit();
      for (const body of [{ reason: "x".repeat(501) }, { reason: 5 }, { reason: null }]) {
        const r = await cancel(id, body);
        expect([r.status, r.body.code]).toEqual([400, "validation_failed"]);
      }
      expect((await queued(id)).state).toBe("pending");
      expect((await cancel(id, { reason: "é".repeat(500), extra: true })).status).toBe(200);
    });

    it("CAP-CANCEL-2: a pending event and a held delivery become cancelled at once, keeping attempts", async () => {
      const pending = await emit();
      expect((await cancel(pending)).body).toEqual({ ok: true, status: "cancelled", changed: true });
      const delivery = await held();
      expect((await cancel(delivery)).body).toEqual({ ok: true, status: "cancelled", changed: true });
      expect(await queued(delivery)).toMatchObject({ state: "cancelled", attempts: 1 });
      expect(await queued(pending)).toMatchObject({ state: "cancelled", attempts: 0 });
    });

    it("CAP-CANCEL-3: cancelling an acked, failed or cancelled event changes nothing and says so", async () => {
      const acked = await held();
      await as("alpha", "POST", `/events/${acked}/ack`, {});
      expect((await cancel(acked)).body).toEqual({ ok: true, status: "acked", changed: false });
      // maxAttempts 2: the second delivery released is the last, so the event fails at once.
      const failed = await held();
      await as("alpha", "POST", `/events/${failed}/release`, { attempts: 1 });
      await as("alpha", "GET", "/events?limit=50");
      const last = await as("alpha", "POST", `/events/${failed}/release`, { attempts: 2 });
      expect(last.body.status).toBe("failed");
      expect((await cancel(failed)).body).toEqual({ ok: true, status: "failed", changed: false });
      const twice = await emit();
      await cancel(twice, { reason: "first" });
      expect((await cancel(twice, { reason: "second" })).body).toEqual({
        ok: true,
        status: "cancelled",
        changed: false,
      });
      expect((await queued(twice)).cancelReason).toBe("first");
    });

    it("CAP-CANCEL-4: no poll returns a cancelled event, fresh or replayed", async () => {
      const a = await emit();
      const first = await as("alpha", "GET", "/events?limit=50&pollId=cancel-replay");
      expect(first.body.events.map((e: { id: string }) => e.id)).toContain(a);
      await cancel(a);
      const replay = await as("alpha", "GET", "/events?limit=50&pollId=cancel-replay");
      expect(replay.body.events.map((e: { id: string }) => e.id)).not.toContain(a);
      const pending = await emit();
      await cancel(pending);
      const fresh = await as("alpha", "GET", "/events?limit=50");
      expect(fresh.body.events.map((e: { id: string }) => e.id)).not.toContain(pending);
    });

    it("CAP-CANCEL-5: a cancelled event is no dead letter and cannot be requeued", async () => {
      const id = await held();
      await cancel(id);
      const dead = await k.admin.get(`/api/admin/dead-letters?podId=${k.podId}`);
      expect(dead.events.map((e: { id: string }) => e.id)).not.toContain(id);
      const requeue = await call(k.url, "POST", `/api/admin/dead-letters/${id}/requeue`, k.human.token);
      expect([requeue.status, requeue.body.code]).toEqual([409, "event_not_failed"]);
      expect((await queued(id)).state).toBe("cancelled");
    });

    it("CAP-CANCEL-6: an ack, single or batch, of a cancelled event succeeds once and leaves it cancelled", async () => {
      const one = await held();
      const two = await held();
      await cancel(one);
      await cancel(two);
      const ack = await as("alpha", "POST", `/events/${one}/ack`, { result: { outcome: "cancelled" } });
      expect([ack.status, ack.body]).toEqual([200, { ok: true }]);
      const batch = await as("alpha", "POST", "/events/ack", {
        acks: [{ id: two, result: { outcome: "cancelled", reason: "stopped" } }, { id: one }],
      });
      expect(batch.body.results).toEqual([
        { id: two, ok: true },
        { id: one, ok: true },
      ]);
      for (const id of [one, two]) {
        const e = await queued(id);
        expect(e.state).toBe("cancelled");
        expect(e.ackedAt).not.toBeNull();
      }
    });

    it("CAP-CANCEL-7: a renew or release of a cancelled delivery is 409 lease_lost with details.cancelled", async () => {
      const id = await held();
      await cancel(id, { reason: "user clicked stop" });
      for (const verb of ["renew", "release"]) {
        const r = await as("alpha", "POST", `/events/${id}/${verb}`, { attempts: 1 });
        expect([r.status, r.body.code, r.body.details]).toEqual([
          409,
          "lease_lost",
          { cancelled: true, reason: "user clicked stop" },
        ]);
      }
    });

    it("CAP-CANCEL-8: the watch of the cancelled delivery answers at once, not cacheable", async () => {
      const id = await held();
      await cancel(id, { reason: "enough" });
      const r = await watch(id, "attempts=1&waitSeconds=25");
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toBe("no-store");
      expect(r.body).toEqual({ cancelRequested: true, reason: "enough", requestedAt: expect.any(String) });
      expect(Date.parse(r.body.requestedAt)).not.toBeNaN();
      expect(r.body.requestedAt).toBe((await queued(id)).cancelledAt);
    });

    it("CAP-CANCEL-9: a held delivery's watch answers {cancelRequested: false, leaseExpiresAt} when its wait ends", async () => {
      const id = await held();
      const now = await watch(id, "attempts=1");
      expect(now.body).toEqual({ cancelRequested: false, leaseExpiresAt: (await queued(id)).leaseExpiresAt });
      const waited = await watch(id, "attempts=1&waitSeconds=1");
      expect(waited.body.cancelRequested).toBe(false);
      expect(waited.headers.get("cache-control")).toBe("no-store");
    });

    it("CAP-CANCEL-9, CAP-CANCEL-10: a waiting watch answers the cancel of its delivery, long before its wait ends", async () => {
      const id = await held();
      const started = Date.now();
      const waiting = watch(id, "attempts=1&waitSeconds=25");
      await eventually(() => k.app!.kernel.cancelHub.watchCount() > 0, "the watch waits");
      await k.cancel(id, "stop now");
      const r = await waiting;
      expect(r.body).toMatchObject({ cancelRequested: true, reason: "stop now" });
      // Woken by the cancel, not by the end of its 25 s wait (the 1 s bound is the bench's to measure).
      expect(Date.now() - started).toBeLessThan(20_000);
    });

    it("CAP-CANCEL-11: a watch of another delivery, a released or an acked one is 409 lease_lost", async () => {
      const id = await held();
      expect((await watch(id, "attempts=2")).body.code).toBe("lease_lost");
      const released = await held();
      await as("alpha", "POST", `/events/${released}/release`, { attempts: 1, delaySeconds: 60 });
      const acked = await held();
      await as("alpha", "POST", `/events/${acked}/ack`, {});
      const pendingCancelled = await emit();
      await cancel(pendingCancelled);
      for (const [e, attempts] of [
        [released, 1],
        [acked, 1],
        [pendingCancelled, 1],
      ] as const) {
        const r = await watch(e, `attempts=${attempts}&waitSeconds=5`);
        expect([r.status, r.body.code]).toEqual([409, "lease_lost"]);
      }
    });

    it("CAP-CANCEL-11: a watch of an unknown or foreign event is 404; bad attempts or waitSeconds are 400", async () => {
      const id = await held();
      expect((await watch("evt_unknown", "attempts=1")).status).toBe(404);
      const foreign = await watch(id, "attempts=1", "beta");
      expect([foreign.status, foreign.body.code]).toEqual([404, "event_not_found"]);
      for (const q of [
        "",
        "attempts=0",
        "attempts=-1",
        "attempts=1.5",
        "attempts=x",
        "attempts=1&waitSeconds=26",
        "attempts=1&waitSeconds=-1",
      ]) {
        const r = await watch(id, q);
        expect([q, r.status, r.body.code]).toEqual([q, 400, "validation_failed"]);
      }
    });

    it("bounds the watches a token holds at once (429 too_many_long_polls with Retry-After), apart from its polls", async () => {
      const ids = [await held(), await held(), await held()];
      const waiting = ids.slice(0, MAX_WATCHES).map((id) => watch(id, "attempts=1&waitSeconds=25"));
      await eventually(() => k.app!.kernel.cancelHub.watchCount() >= MAX_WATCHES, "the watches wait");
      const refused = await watch(ids[2]!, "attempts=1&waitSeconds=25");
      expect([refused.status, refused.body.code]).toEqual([429, "too_many_long_polls"]);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.body.details).toEqual({ maxCancelWatchesPerToken: MAX_WATCHES });
      // A watch that answers at once needs no slot; a poll has its own budget.
      expect((await watch(ids[2]!, "attempts=1")).status).toBe(200);
      expect((await as("alpha", "GET", "/events?waitSeconds=0")).status).toBe(200);
      for (const id of ids.slice(0, MAX_WATCHES)) await k.cancel(id);
      for (const r of await Promise.all(waiting)) expect(r.body.cancelRequested).toBe(true);
      expect((await watch(ids[2]!, "attempts=1&waitSeconds=1")).status).toBe(200);
    });

    it("gives a watch's slot back when its client hangs up", async () => {
      const ids = [await held(), await held()];
      for (const id of ids) {
        const gone = new AbortController();
        const r = fetch(`${k.url}${CAP}/events/${id}/cancellation?attempts=1&waitSeconds=25`, {
          headers: { authorization: `Bearer ${token("alpha")}` },
          signal: gone.signal,
        }).catch(() => "hung up");
        await eventually(() => k.app!.kernel.cancelHub.watchCount() > 0, "the watch waits");
        gone.abort();
        expect(await r).toBe("hung up");
        await eventually(() => k.app!.kernel.cancelHub.watchCount() === 0, "the watch ended");
      }
      // Both hung-up watches gave their slots back: two more fit.
      const again = ids.map((id) => watch(id, "attempts=1&waitSeconds=25"));
      await eventually(() => k.app!.kernel.cancelHub.watchCount() === 2, "two watches wait again");
      for (const id of ids) await k.cancel(id);
      for (const r of await Promise.all(again)) expect(r.status).toBe(200);
    });

    it("CAP-CANCEL-12: a member and an operator cancel through the admin surface; others cannot", async () => {
      const member = await held();
      expect(await k.cancel(member, "from the console")).toEqual({
        ok: true,
        status: "cancelled",
        changed: true,
      });
      expect((await queued(member)).cancelledBy).toEqual({ kind: "human", id: k.human.id });
      // An operator who is no member of the pod, and a human who is neither.
      const op = await k.admin.post("/api/users", { name: "otto", isAdmin: true });
      const outsider = await k.admin.post("/api/users", { name: "olga" });
      const byOperator = await held();
      const path = (id: string, pod = k.podId) => `/api/pods/${pod}/events/${id}/cancel`;
      const asOp = await call(k.url, "POST", path(byOperator), op.token, {});
      expect([asOp.status, asOp.body]).toEqual([200, { ok: true, status: "cancelled", changed: true }]);
      expect((await queued(byOperator)).cancelledBy).toEqual({ kind: "operator", id: op.user.id });
      const untouched = await held();
      const refused = await call(k.url, "POST", path(untouched), outsider.token, {});
      expect([refused.status, refused.body.code]).toEqual([404, "pod_not_found"]);
      const agentToken = await call(k.url, "POST", path(untouched), token("alpha"), {});
      expect(agentToken.status).toBe(401);
      const otherPod = await k.admin.post("/api/pods", { name: "elsewhere" });
      const wrongPod = await call(k.url, "POST", path(untouched, otherPod.id), k.human.token, {});
      expect([wrongPod.status, wrongPod.body.code]).toEqual([404, "event_not_found"]);
      const tooLong = await call(k.url, "POST", path(untouched), k.human.token, { reason: "x".repeat(501) });
      const unknownField = await call(k.url, "POST", path(untouched), k.human.token, { why: "x" });
      for (const r of [tooLong, unknownField])
        expect([r.status, r.body.code]).toEqual([400, "validation_failed"]);
      expect((await queued(untouched)).state).toBe("leased");
    });

    it("CAP-CANCEL-13: the queue view shows each cancel's reason, time and canceller", async () => {
      const byAgent = await held();
      await cancel(byAgent);
      const byHuman = await emit();
      await k.cancel(byHuman, "not needed");
      expect(await queued(byAgent)).toMatchObject({
        state: "cancelled",
        cancelReason: "requested",
        cancelledBy: { kind: "agent", id: expect.stringMatching(/^agt_/) },
      });
      const h = await queued(byHuman);
      expect(h).toMatchObject({ state: "cancelled", cancelReason: "not needed" });
      expect(Date.parse(h.cancelledAt!)).not.toBeNaN();
      const open = await queued(await emit());
      expect([open.cancelReason, open.cancelledAt, open.cancelledBy]).toEqual([null, null, null]);
    });

    it("advertises cancel, its double-texting policies and its watch budget in /info", async () => {
      const info = (await as("alpha", "GET", "/info")).body;
      expect(info.features).toContain("cancel");
      expect(info.doubleTexting).toEqual(["enqueue", "interrupt"]);
      expect(info.limits.maxCancelWatchesPerToken).toBe(MAX_WATCHES);
    });

    it("counts cancels by reason class and the open watches in /metrics", async () => {
      const metric = async (line: RegExp) => {
        const text = await (await fetch(`${k.url}/metrics`)).text();
        return Number(text.match(line)?.[1] ?? 0);
      };
      const requested = /^cap_events_cancelled_total\{reason="requested"\} (\d+)$/m;
      const before = await metric(requested);
      await cancel(await emit(), { reason: "a reason of my own" });
      expect(await metric(requested)).toBe(before + 1);
      const id = await held();
      const waiting = watch(id, "attempts=1&waitSeconds=25");
      await eventually(
        async () => (await metric(/^cap_cancel_watches_waiting (\d+)$/m)) === 1,
        "the gauge shows the watch",
      );
      await k.cancel(id);
      await waiting;
    });
  });
}

describe("feature cancel under the production profile", () => {
  it("is not advertised (the production kernel has none), and its CAP routes answer 404 route_not_found", async () => {
    const k = await startKernelInProcess({ agents: ["alpha"], profile: "production" });
    try {
      const info = (
        await k.cap<{ features: string[]; doubleTexting?: string[]; limits: object }>(
          k.agents.alpha!.token,
          "GET",
          "/info",
        )
      ).body;
      expect(info.features).not.toContain("cancel");
      expect(info).not.toHaveProperty("doubleTexting");
      expect(info.limits).not.toHaveProperty("maxCancelWatchesPerToken");
      const id = await k.emit("alpha", "task.assigned", { taskId: "t", title: "x" });
      for (const [method, path] of [
        ["POST", `/events/${id}/cancel`],
        ["GET", `/events/${id}/cancellation?attempts=1`],
      ] as const) {
        const r = await k.cap<{ code: string }>(k.agents.alpha!.token, method, path);
        expect([r.status, r.body.code]).toEqual([404, "route_not_found"]);
      }
    } finally {
      await k.stop();
    }
  });
});
