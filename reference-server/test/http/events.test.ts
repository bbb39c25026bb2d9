/**
 * The event lifecycle over HTTP with short real leases (300 ms): lease, redelivery with attempts + 1 at the
 * first poll after expiry, maxAttempts → failed and kept, idempotent ack, renew fencing, ordering, and the
 * Event shape against the generated schema. Deadline polling, no guessed sleeps.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capValidator } from "../helpers/schemas.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";

let w: World;
const LEASE_MS = 300;
beforeEach(async () => {
  w = await makeWorld({ config: { leaseSeconds: LEASE_MS / 1000, maxAttempts: 3 } });
});
afterEach(async () => {
  await w.app.close();
});

const emit = (
  agentName: string,
  type = "task.assigned",
  payload: Record<string, unknown> = { taskId: "t1", title: "do" },
) =>
  w
    .adminApi("POST", "/admin/events", { agentName, podId: w.podA.id, type, payload })
    .then((r) => r.json().id as string);
const poll = (token: string, q = "") =>
  w.cap(token, "GET", `/events${q}`).then((r) => r.json().events as Ev[]);
type Ev = {
  id: string;
  _id: string;
  attempts: number;
  type: string;
  leaseExpiresAt: string;
  payload: unknown;
};

describe("events", () => {
  it("returns events in the generated Event shape, with _id equal to id", async () => {
    const id = await emit("alpha");
    const res = await w.cap(w.alpha.token, "GET", "/events");
    expect(capValidator("EventList")(res.json())).toBe(true);
    const [e] = res.json().events;
    expect(e).toMatchObject({
      id,
      _id: id,
      type: "task.assigned",
      podId: w.podA.id,
      attempts: 1,
      payload: { taskId: "t1" },
    });
    expect(Date.parse(e.leaseExpiresAt) - Date.parse(e.createdAt)).toBeGreaterThan(0);
  });

  it("claims nothing on a HEAD request (no HEAD twin of the poll route)", async () => {
    await emit("alpha");
    const head = await w.req({ method: "HEAD", url: "/api/agents/runtime/events", token: w.alpha.token });
    expect(head.statusCode).toBe(404);
    expect((await poll(w.alpha.token)).map((e) => e.attempts)).toEqual([1]);
  });

  it("delivers an agent's ready events oldest first, up to limit", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++)
      ids.push(await emit("alpha", "task.assigned", { taskId: `t${i}`, title: "x" }));
    expect((await poll(w.alpha.token, "?limit=3")).map((e) => e.id)).toEqual(ids.slice(0, 3));
    expect((await poll(w.alpha.token)).map((e) => e.id)).toEqual(ids.slice(3));
  });

  it("does not return a leased event to any poll while its lease runs", async () => {
    await emit("alpha");
    const leaseOf = async () => {
      const first = await poll(w.alpha.token);
      return { first, again: await poll(w.alpha.token) };
    };
    const { first, again } = await leaseOf();
    expect(first).toHaveLength(1);
    // Only meaningful while the lease still runs: check the clock, so a slow machine cannot make it vacuous.
    if (Date.now() < Date.parse(first[0]!.leaseExpiresAt)) expect(again).toEqual([]);
  });

  it("redelivers an unacked event at the first poll after its lease ends, with attempts + 1", async () => {
    const id = await emit("alpha");
    const [first] = await poll(w.alpha.token);
    expect(first!.attempts).toBe(1);
    const again = await eventually(
      () => poll(w.alpha.token),
      (es) => es.length > 0,
    );
    expect(again.map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(first!.leaseExpiresAt));
  });

  it("fails an event after maxAttempts deliveries, keeps it, lists it, and lets an operator requeue it", async () => {
    const id = await emit("alpha");
    const seen: number[] = [];
    await eventually(
      async () => {
        seen.push(...(await poll(w.alpha.token)).map((e) => e.attempts));
        return (await w.store.getEvent(id))?.state;
      },
      (state) => state === "failed",
    );
    expect(seen).toEqual([1, 2, 3]);
    const dead = await w.adminApi("GET", "/admin/dead-letters");
    expect(dead.json().events.map((e: { id: string; failReason: string }) => [e.id, e.failReason])).toEqual([
      [id, "max_attempts"],
    ]);
    expect(await poll(w.alpha.token)).toEqual([]);
    const rq = await w.adminApi("POST", `/admin/dead-letters/${id}/requeue`);
    expect(rq.json().state).toBe("pending");
    expect((await poll(w.alpha.token)).map((e) => [e.id, e.attempts])).toEqual([[id, 4]]);
    const again = await w.adminApi("POST", `/admin/dead-letters/${id}/requeue`);
    expect([again.statusCode, again.json().code]).toEqual([409, "event_not_failed"]);
  });

  it("acks idempotently, after the lease ended, and never delivers an acked event again", async () => {
    const id = await emit("alpha");
    await poll(w.alpha.token);
    await eventually(
      () => poll(w.alpha.token),
      (es) => es.length > 0,
    );
    for (let i = 0; i < 2; i++) {
      const res = await w.cap(w.alpha.token, "POST", `/events/${id}/ack`, {
        result: { outcome: "posted", content: "py-sdk extra field" },
      });
      expect([res.statusCode, res.json()]).toEqual([200, { ok: true }]);
    }
    await new Promise((r) => setTimeout(r, LEASE_MS + 50));
    expect(await poll(w.alpha.token)).toEqual([]);
    expect((await w.store.getEvent(id))?.result).toEqual({
      outcome: "posted",
      content: "py-sdk extra field",
    });
  });

  it("settles an event acked with outcome error like any other outcome", async () => {
    const id = await emit("alpha");
    await poll(w.alpha.token);
    await w.cap(w.alpha.token, "POST", `/events/${id}/ack`, { result: { outcome: "error", reason: "boom" } });
    expect((await w.store.getEvent(id))?.state).toBe("acked");
  });

  it("accepts an ack with an empty body and a JSON content type", async () => {
    const id = await emit("alpha");
    const res = await w.req({
      method: "POST",
      url: `/api/agents/runtime/events/${id}/ack`,
      token: w.alpha.token,
      payload: "",
      headers: { "content-type": "application/json" },
    });
    expect(res.statusCode).toBe(200);
  });

  it("renews only the delivery that holds the lease", async () => {
    // A 2 s lease: the renew must land inside the first lease even when a loaded machine stalls a request.
    await w.app.close();
    w = await makeWorld({ config: { leaseSeconds: 2, maxAttempts: 3 } });
    const id = await emit("alpha");
    const [e] = await poll(w.alpha.token);
    const ok = await w.cap(w.alpha.token, "POST", `/events/${id}/renew`, { attempts: 1 });
    expect(ok.statusCode).toBe(200);
    expect(capValidator("RenewResponse")(ok.json())).toBe(true);
    expect(Date.parse(ok.json().leaseExpiresAt)).toBeGreaterThanOrEqual(Date.parse(e!.leaseExpiresAt));
    const wrong = await w.cap(w.alpha.token, "POST", `/events/${id}/renew`, { attempts: 2 });
    expect([wrong.statusCode, wrong.json().code]).toEqual([409, "lease_lost"]);
    const second = await eventually(
      () => poll(w.alpha.token),
      (es) => es.length > 0,
    );
    expect(second[0]!.attempts).toBe(2);
    const stale = await w.cap(w.alpha.token, "POST", `/events/${id}/renew`, { attempts: 1 });
    expect([stale.statusCode, stale.json().code]).toEqual([409, "lease_lost"]);
    await w.cap(w.alpha.token, "POST", `/events/${id}/ack`);
    const acked = await w.cap(w.alpha.token, "POST", `/events/${id}/renew`, { attempts: 2 });
    expect([acked.statusCode, acked.json().code]).toEqual([409, "lease_lost"]);
  });

  it("keeps a renewed event from redelivery past its original lease", async () => {
    await w.app.close();
    // Renewing every ~200 ms inside a 2 s lease leaves a loaded machine 1.8 s per round before the lease ends.
    w = await makeWorld({ config: { leaseSeconds: 2, maxAttempts: 3 } });
    const id = await emit("alpha");
    const [e] = await poll(w.alpha.token);
    const end = Date.parse(e!.leaseExpiresAt) + 1500;
    while (Date.now() < end) {
      const r = await w.cap(w.alpha.token, "POST", `/events/${id}/renew`, { attempts: 1 });
      expect(r.statusCode).toBe(200);
      expect(await poll(w.alpha.token)).toEqual([]);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it("never gives one event to two of 16 concurrent pollers of one agent", async () => {
    for (let i = 0; i < 60; i++) await emit("alpha", "task.assigned", { taskId: `t${i}`, title: "x" });
    const batches = await Promise.all(Array.from({ length: 16 }, () => poll(w.alpha.token, "?limit=5")));
    const ids = batches.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(60);
  });
});

describe("long-poll", () => {
  it("answers at once when an event is ready, whatever waitSeconds", async () => {
    await emit("alpha");
    const t0 = Date.now();
    expect(await poll(w.alpha.token, "?waitSeconds=25")).toHaveLength(1);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it("holds a poll until a human's message wakes the agent", async () => {
    const waiting = poll(w.alpha.token, "?waitSeconds=20");
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    const t0 = Date.now();
    await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "hello @alpha" });
    const events = await waiting;
    expect(events.map((e) => e.type)).toEqual(["mention.received"]);
    // The message, not the end of the 20 s wait, returned the poll (latency itself is benchmarked).
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("wakes a waiting poll when a lease of its agent ends", async () => {
    const id = await emit("alpha");
    await poll(w.alpha.token);
    const t0 = Date.now();
    const events = await poll(w.alpha.token, "?waitSeconds=10");
    expect(events.map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
    // The lease's end, not the end of the 10 s wait, returned the poll.
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it("answers [] when the wait ends with nothing ready", async () => {
    const t0 = Date.now();
    expect(await poll(w.alpha.token, "?waitSeconds=1")).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it("releases waiting long-polls with [] on shutdown", async () => {
    const waiting = poll(w.alpha.token, "?waitSeconds=25");
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    const t0 = Date.now();
    await w.app.close();
    expect(await waiting).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
