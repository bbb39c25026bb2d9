/**
 * The queue verbs added after the first release, over HTTP (inject), on SQLite and (with CAP_TEST_PG_URL)
 * on PostgreSQL (two app replicas on one schema: queue-verbs-replicas.test.ts): release (fencing, delay, last attempt →
 * failed, reason in the dead-letter listing), batch ack (per-item results, all-or-nothing validation),
 * pollId replay (same deliveries, nothing new claimed, fresh once they are gone), Cache-Control, /info, and
 * long-polls woken by releases. Long leases where expiry is not the point; deadline polling, no guessed sleeps.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/contract.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { adminValidator, capValidator } from "../helpers/schemas.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";
import { CONFIG, MAX, PG_URL, pgSchemas, verbs } from "./queue-verbs-fixture.js";

const newSchema = pgSchemas();
const stores: Array<[string, () => Promise<Store>]> = [
  ["sqlite", async () => openSqliteStore({ path: ":memory:" })],
];
const pgUrl = PG_URL;
if (pgUrl) stores.push(["postgres", () => openPostgresStore({ url: pgUrl, schema: newSchema() })]);

let w: World;
const { emit, poll, release } = verbs(() => w);

describe.each(stores)("queue verbs on %s", (_, openStore) => {
  beforeEach(async () => {
    w = await makeWorld({ store: await openStore(), config: CONFIG });
  });
  afterEach(async () => {
    await w.app.close();
    await w.store.close();
  });

  describe("release", () => {
    it("ends the delivery now and returns the event at the next poll with attempts + 1", async () => {
      const id = await emit();
      const [first] = await poll(w.alpha.token);
      const res = await release(id, { attempts: first!.attempts });
      expect(res.statusCode).toBe(200);
      expect(capValidator("ReleaseResponse")(res.json())).toBe(true);
      expect(res.json()).toMatchObject({ ok: true, status: "pending" });
      expect(Date.parse(res.json().availableAt)).toBeLessThanOrEqual(Date.now());
      expect((await poll(w.alpha.token)).map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
    });

    it("keeps a delayed event from every poll until availableAt, then delivers it", async () => {
      const id = await emit();
      await poll(w.alpha.token);
      const before = Date.now();
      const res = await release(id, { attempts: 1, delaySeconds: 1, reason: "provider down" });
      const availableAt = Date.parse(res.json().availableAt);
      expect(availableAt - before).toBeGreaterThanOrEqual(1000);
      expect(availableAt - before).toBeLessThan(2000);
      const seen = await eventually(
        () => poll(w.alpha.token),
        (events) => events.length > 0,
      );
      // The kernel's own claim instant (its lease end minus the lease), not a client clock read around it.
      const claimedAt = Date.parse(seen[0]!.leaseExpiresAt) - CONFIG.leaseSeconds! * 1000;
      expect(claimedAt).toBeGreaterThanOrEqual(availableAt);
      expect(seen.map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
    });

    it("is fenced by attempts like renew: 409 lease_lost for another or an ended delivery, 404 for foreign ids", async () => {
      const id = await emit();
      await poll(w.alpha.token);
      expect((await release(id, { attempts: 2 })).json().code).toBe("lease_lost");
      const foreign = await release(id, { attempts: 1 }, w.beta.token);
      expect([foreign.statusCode, foreign.json().code]).toEqual([404, "event_not_found"]);
      expect((await release("evt_nope", { attempts: 1 })).statusCode).toBe(404);
      expect((await release(id, { attempts: 1, delaySeconds: 60 })).statusCode).toBe(200);
      const twice = await release(id, { attempts: 1 });
      expect([twice.statusCode, twice.json().code]).toEqual([409, "lease_lost"]);
      const renew = await w.cap(w.alpha.token, "POST", `/events/${id}/renew`, { attempts: 1 });
      expect([renew.statusCode, renew.json().code]).toEqual([409, "lease_lost"]);
      const ack = await w.cap(w.alpha.token, "POST", `/events/${id}/ack`);
      expect(ack.statusCode).toBe(200);
      expect((await release(id, { attempts: 1 })).json().code).toBe("lease_lost");
    });

    it.each([
      [{}],
      [{ attempts: 0 }],
      [{ attempts: "1" }],
      [{ attempts: 1, delaySeconds: -1 }],
      [{ attempts: 1, delaySeconds: 901 }],
      [{ attempts: 1, delaySeconds: 1.5 }],
      [{ attempts: 1, reason: "x".repeat(501) }],
      [{ attempts: 1, reason: 7 }],
    ])("answers 400 validation_failed to %j and changes nothing", async (body) => {
      const id = await emit();
      await poll(w.alpha.token);
      const res = await release(id, body);
      expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
      expect((await w.store.getEvent(id))?.releasedAttempts).toBeNull();
    });

    it("makes a released last attempt failed at once, listed with its reason, and re-queueable", async () => {
      const id = await emit();
      for (let a = 1; a < MAX; a++) {
        await poll(w.alpha.token);
        await release(id, { attempts: a });
      }
      expect((await poll(w.alpha.token)).map((e) => e.attempts)).toEqual([MAX]);
      const res = await release(id, { attempts: MAX, delaySeconds: 5, reason: "poison: bad payload" });
      expect(res.json()).toEqual({ ok: true, status: "failed" });
      const dead = await w.adminApi("GET", "/admin/dead-letters");
      expect(adminValidator("DeadLetterList")(dead.json())).toBe(true);
      expect(dead.json().events).toMatchObject([
        { id, state: "failed", failReason: "released", releaseReason: "poison: bad payload", attempts: MAX },
      ]);
      expect(await poll(w.alpha.token)).toEqual([]);
      expect((await w.adminApi("POST", `/admin/dead-letters/${id}/requeue`)).statusCode).toBe(200);
      expect((await poll(w.alpha.token)).map((e) => e.attempts)).toEqual([MAX + 1]);
    });

    it("shows a delayed event as pending with availableAt and reason in the pod queue", async () => {
      const id = await emit();
      await poll(w.alpha.token);
      const released = await release(id, { attempts: 1, delaySeconds: 600, reason: "circuit open" });
      const queue = await w.adminApi("GET", `/admin/pods/${w.podA.id}/queue`);
      expect(adminValidator("PodQueue")(queue.json())).toBe(true);
      const alpha = queue.json().agents.find((a: { agentName: string }) => a.agentName === "alpha");
      expect(alpha.events).toMatchObject([
        {
          id,
          state: "pending",
          leaseExpiresAt: null,
          availableAt: released.json().availableAt,
          releaseReason: "circuit open",
        },
      ]);
    });

    it("wakes another waiting long-poll at once on a release without delay", async () => {
      const id = await emit();
      await poll(w.alpha.token);
      const waiting = poll(w.alpha.token, "?waitSeconds=20");
      await eventually(
        async () => w.kernel.hub.waiterCount(),
        (n) => n > 0,
      );
      const releasedAt = Date.now();
      await release(id, { attempts: 1 });
      expect((await waiting).map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
      // Woken by the release, not by the end of the 20 s wait.
      expect(Date.now() - releasedAt).toBeLessThan(10_000);
    });

    it("wakes a waiting long-poll when a delayed release becomes ready", async () => {
      const id = await emit();
      await poll(w.alpha.token);
      const waiting = poll(w.alpha.token, "?waitSeconds=20");
      await eventually(
        async () => w.kernel.hub.waiterCount(),
        (n) => n > 0,
      );
      const availableAt = Date.parse(
        (await release(id, { attempts: 1, delaySeconds: 1 })).json().availableAt,
      );
      const events = await waiting;
      expect(Date.now()).toBeGreaterThanOrEqual(availableAt);
      // Woken by the release instant, not by the end of the 20 s wait.
      expect(Date.now() - availableAt).toBeLessThan(10_000);
      expect(events.map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
    });
  });

  describe("batch ack", () => {
    const ackMany = (body: unknown, token = w.alpha.token) => w.cap(token, "POST", "/events/ack", body);

    it("settles each item like the single ack and answers per item, in request order", async () => {
      const a = await emit();
      const b = await emit();
      const foreign = await emit("beta");
      await poll(w.alpha.token);
      const res = await ackMany({
        acks: [
          { id: a, result: { outcome: "posted", messageId: "msg_1" } },
          { id: "evt_nope" },
          { id: foreign },
          { id: b },
          { id: a, result: { outcome: "error" } },
        ],
      });
      expect(res.statusCode).toBe(200);
      expect(capValidator("BatchAckResponse")(res.json())).toBe(true);
      expect(res.json().results).toEqual([
        { id: a, ok: true },
        { id: "evt_nope", ok: false, code: "event_not_found" },
        { id: foreign, ok: false, code: "event_not_found" },
        { id: b, ok: true },
        { id: a, ok: true },
      ]);
      expect((await w.store.getEvent(a))?.result).toEqual({ outcome: "posted", messageId: "msg_1" });
      expect((await w.store.getEvent(foreign))?.state).toBe("pending");
      expect(
        (await ackMany({ acks: [{ id: a }, { id: b }] })).json().results.map((r: { ok: boolean }) => r.ok),
      ).toEqual([true, true]);
      expect(await poll(w.alpha.token)).toEqual([]);
    });

    it("accepts items with or without a running lease: pending, leased, and re-claimed by a later poll", async () => {
      const pending = await emit();
      const leased = await emit();
      await poll(w.alpha.token, "?limit=1");
      await w.cap(w.alpha.token, "POST", `/events/${pending}/release`, { attempts: 1 });
      const [reclaimed] = await poll(w.alpha.token, "?limit=1");
      expect(reclaimed?.attempts).toBe(2);
      await poll(w.alpha.token);
      const res = await ackMany({ acks: [{ id: pending }, { id: leased }] });
      expect(res.json().results).toEqual([
        { id: pending, ok: true },
        { id: leased, ok: true },
      ]);
      expect(await poll(w.alpha.token)).toEqual([]);
    });

    const malformed: Array<[string, (id: string) => unknown]> = [
      ["no acks", () => ({})],
      ["no items", () => ({ acks: [] })],
      ["101 items", (id) => ({ acks: Array.from({ length: 101 }, () => ({ id })) })],
      ["acks not an array", (id) => ({ acks: id })],
      ["an item with an empty id", (id) => ({ acks: [{ id }, { id: "" }] })],
      ["an item without an id", (id) => ({ acks: [{ id }, { result: { outcome: "posted" } }] })],
      ["an item with an unknown outcome", (id) => ({ acks: [{ id }, { id, result: { outcome: "maybe" } }] })],
    ];
    it.each(malformed)(
      "answers 400 validation_failed to a batch with %s and settles none of it",
      async (_, body) => {
        const id = await emit();
        const res = await ackMany(body(id));
        expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
        expect((await w.store.getEvent(id))?.state).toBe("pending");
      },
    );

    it("takes 100 items in one request", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) ids.push(await emit());
      const res = await ackMany({ acks: ids.map((id) => ({ id })) });
      expect(res.json().results.every((r: { ok: boolean }) => r.ok)).toBe(true);
      expect(await poll(w.alpha.token)).toEqual([]);
    });
  });

  describe("pollId", () => {
    it("answers a repeated pollId with the same deliveries and claims nothing new", async () => {
      const ids = [await emit(), await emit(), await emit()];
      const first = await poll(w.alpha.token, "?limit=2&pollId=retry-1");
      expect(first.map((e) => e.id)).toEqual(ids.slice(0, 2));
      const again = await poll(w.alpha.token, "?limit=2&pollId=retry-1");
      expect(again).toEqual(first);
      expect((await poll(w.alpha.token)).map((e) => e.id)).toEqual([ids[2]]);
    });

    it("answers a replay at once, whatever its waitSeconds", async () => {
      await emit();
      const first = await poll(w.alpha.token, "?pollId=p-wait");
      const started = Date.now();
      expect(await poll(w.alpha.token, "?pollId=p-wait&waitSeconds=20")).toEqual(first);
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it("answers as a fresh poll once the deliveries of the pollId are gone", async () => {
      const a = await emit();
      const b = await emit();
      await poll(w.alpha.token, "?limit=1&pollId=p1");
      await w.cap(w.alpha.token, "POST", `/events/${a}/ack`);
      expect((await poll(w.alpha.token, "?limit=1&pollId=p1")).map((e) => [e.id, e.attempts])).toEqual([
        [b, 1],
      ]);
      await release(b, { attempts: 1 });
      expect((await poll(w.alpha.token, "?pollId=p1")).map((e) => [e.id, e.attempts])).toEqual([[b, 2]]);
    });

    it("returns only the still-held deliveries, with their renewed lease", async () => {
      const a = await emit();
      const b = await emit();
      const first = await poll(w.alpha.token, "?pollId=p2");
      await w.cap(w.alpha.token, "POST", `/events/${a}/ack`);
      const renewed = await w.cap(w.alpha.token, "POST", `/events/${b}/renew`, { attempts: 1 });
      const again = await poll(w.alpha.token, "?pollId=p2");
      expect(again.map((e) => [e.id, e.attempts, e.leaseExpiresAt])).toEqual([
        [b, 1, renewed.json().leaseExpiresAt],
      ]);
      expect(first).toHaveLength(2);
    });

    it("scopes a pollId to the agent identity", async () => {
      await emit("alpha");
      const b = await emit("beta");
      await poll(w.alpha.token, "?pollId=shared");
      expect((await poll(w.beta.token, "?pollId=shared")).map((e) => e.id)).toEqual([b]);
    });

    it.each(["", "a".repeat(65), "has space", "dot.ted", "%C3%A9"])(
      "answers 400 validation_failed to pollId %j",
      async (bad) => {
        const res = await w.cap(
          w.alpha.token,
          "GET",
          `/events?pollId=${bad.includes("%") ? bad : encodeURIComponent(bad)}`,
        );
        expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
      },
    );

    it("sends Cache-Control: no-store on every poll answer, refusals included", async () => {
      await emit();
      const answers = [
        await w.cap(w.alpha.token, "GET", "/events"),
        await w.cap(w.alpha.token, "GET", "/events?pollId=x"),
        await w.cap(w.alpha.token, "GET", "/events?pollId=not%20valid"),
        await w.cap(w.alpha.token, "GET", "/events?limit=0"),
        await w.cap(`cm_agent_${"0".repeat(64)}`, "GET", "/events"),
        await w.cap("", "GET", "/events"),
      ];
      expect(answers.map((a) => [a.statusCode, a.headers["cache-control"]])).toEqual([
        [200, "no-store"],
        [200, "no-store"],
        [400, "no-store"],
        [400, "no-store"],
        [401, "no-store"],
        [401, "no-store"],
      ]);
    });
  });

  describe("/info", () => {
    it("advertises release, batch-ack and poll-replay", async () => {
      const info = (await w.cap(w.alpha.token, "GET", "/info")).json();
      expect(info.features).toEqual(expect.arrayContaining(["release", "batch-ack", "poll-replay"]));
    });
  });
});
