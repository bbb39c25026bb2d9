/**
 * The queue verbs across two app replicas of one PostgreSQL schema (needs CAP_TEST_PG_URL): a poll replayed
 * on the other replica, concurrent polls with one pollId on both, a long-poll woken through the other
 * replica's delayed release, and a batch ack sent to the other replica.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app.js";
import type { Store } from "../../src/store/contract.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";
import { CONFIG, type Ev, PG_URL, pgSchemas, verbs } from "./queue-verbs-fixture.js";

const newSchema = pgSchemas();
let w: World;
const { emit, poll, release } = verbs(() => w);

describe.skipIf(!PG_URL)(
  `queue verbs on two app replicas of one PostgreSQL schema${PG_URL ? "" : " (skipped: CAP_TEST_PG_URL not set)"}`,
  () => {
    let other: Awaited<ReturnType<typeof buildApp>>;
    let otherStore: Store;
    const on2 = (token: string, method: string, path: string, body?: unknown) =>
      other.inject({
        method: method as "GET",
        url: `/api/agents/runtime${path}`,
        headers: { authorization: `Bearer ${token}` },
        ...(body !== undefined ? { payload: body as object } : {}),
      });
    beforeEach(async () => {
      const schema = newSchema();
      w = await makeWorld({ store: await openPostgresStore({ url: PG_URL!, schema }), config: CONFIG });
      otherStore = await openPostgresStore({ url: PG_URL!, schema });
      other = await buildApp({ store: otherStore, logger: false, config: CONFIG });
    });
    afterEach(async () => {
      await other.close();
      await otherStore.close();
      await w.app.close();
      await w.store.close();
    });

    it("answers a poll replayed on the other replica with the same deliveries", async () => {
      const a = await emit();
      await emit();
      const first = await poll(w.alpha.token, "?limit=1&pollId=lost-answer");
      const replay = await on2(w.alpha.token, "GET", "/events?limit=1&pollId=lost-answer");
      expect(replay.json().events).toEqual(first);
      expect(first.map((e) => e.id)).toEqual([a]);
    });

    it("gives two concurrent polls with one pollId on two replicas the same deliveries", async () => {
      for (let i = 0; i < 6; i++) await emit();
      const [x, y] = await Promise.all([
        poll(w.alpha.token, "?limit=3&pollId=raced"),
        on2(w.alpha.token, "GET", "/events?limit=3&pollId=raced").then((r) => r.json().events as Ev[]),
      ]);
      expect(x.map((e) => e.id)).toEqual(y.map((e) => e.id));
      expect(await poll(w.alpha.token)).toHaveLength(3);
    });

    it("wakes a long-poll on one replica when a delayed release through the other becomes ready", async () => {
      const id = await emit();
      await poll(w.alpha.token);
      const waiting = on2(w.alpha.token, "GET", "/events?waitSeconds=20");
      await eventually(
        async () => other.kernel.hub.waiterCount(),
        (n) => n > 0,
      );
      const res = await release(id, { attempts: 1, delaySeconds: 1 });
      const availableAt = Date.parse(res.json().availableAt);
      const events = (await waiting).json().events as Ev[];
      expect(Date.now()).toBeGreaterThanOrEqual(availableAt);
      expect(Date.now() - availableAt).toBeLessThan(10_000);
      expect(events.map((e) => [e.id, e.attempts])).toEqual([[id, 2]]);
    });

    it("settles a batch ack sent to the other replica", async () => {
      const a = await emit();
      const b = await emit();
      await poll(w.alpha.token);
      const res = await on2(w.alpha.token, "POST", "/events/ack", { acks: [{ id: a }, { id: b }] });
      expect(res.json().results).toEqual([
        { id: a, ok: true },
        { id: b, ok: true },
      ]);
      expect((await w.store.getEvent(b))?.state).toBe("acked");
    });
  },
);
