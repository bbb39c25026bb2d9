/**
 * The whole app on the PostgreSQL store (when CAP_TEST_PG_URL is set): the same services and routes as on
 * SQLite, so a representative pass — fan-out, lease redelivery, long-poll wake via LISTEN/NOTIFY, idempotent
 * posts under concurrency, memory dedup, decisions, uninstall — must behave identically.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

describe.skipIf(!url)(`the app on PostgreSQL${skipped}`, () => {
  const schemas: string[] = [];
  let w: World;
  beforeEach(async () => {
    const schema = `cap_app_${randomBytes(5).toString("hex")}`;
    schemas.push(schema);
    const store = await openPostgresStore({ url: url!, schema });
    w = await makeWorld({ store, config: { leaseSeconds: 0.4, maxAttempts: 2 } });
  });
  afterEach(async () => {
    await w.app.close();
    await w.store.close();
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });

  it("fans out, leases, redelivers and retires like the SQLite kernel", async () => {
    const waiting = w.cap(w.alpha.token, "GET", "/events?waitSeconds=10");
    await eventually(
      async () => w.kernel.hub.waiterCount(),
      (n) => n === 1,
    );
    await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "@alpha go" });
    const [e] = (await waiting).json().events;
    expect([e.type, e.attempts]).toEqual(["mention.received", 1]);
    const again = await eventually(
      () => w.cap(w.alpha.token, "GET", "/events").then((r) => r.json().events),
      (es) => es.length > 0,
    );
    expect(again[0].attempts).toBe(2);
    await eventually(
      () => w.store.getEvent(e.id),
      (ev) => (ev?.leaseExpiresAt ?? 0) <= Date.now(),
    );
    expect((await w.cap(w.alpha.token, "GET", "/events")).json().events).toEqual([]);
    expect(
      (await w.adminApi("GET", "/admin/dead-letters")).json().events.map((x: { id: string }) => x.id),
    ).toEqual([e.id]);
    expect(
      (await w.cap(w.beta.token, "GET", "/events")).json().events.map((x: { type: string }) => x.type),
    ).toEqual(["message.posted"]);
  });

  it("creates one message for concurrent posts with one Idempotency-Key", async () => {
    const post = () =>
      w.cap(
        w.alpha.token,
        "POST",
        `/pods/${w.podA.id}/messages`,
        { content: "once" },
        { "idempotency-key": "k1" },
      );
    const results = await Promise.all(Array.from({ length: 8 }, post));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    expect(await w.store.listMessages({ podId: w.podA.id, limit: 10 })).toHaveLength(1);
  });

  it("keeps memory writes whole under concurrency and dedups syncs", async () => {
    const keys = ["soul", "long_term", "dedup_state", "shared", "runtime_meta"];
    await Promise.all(
      keys.map((k) => w.cap(w.alpha.token, "PUT", "/memory", { sections: { [k]: { content: k } } })),
    );
    const m = (await w.cap(w.alpha.token, "GET", "/memory")).json();
    expect(Object.keys(m.sections).sort()).toEqual([...keys].sort());
    const A = { mode: "patch", sections: { soul: { content: "x" } } };
    expect((await w.cap(w.alpha.token, "POST", "/memory/sync", A)).json().deduped).toBeUndefined();
    expect((await w.cap(w.alpha.token, "POST", "/memory/sync", A)).json().deduped).toBe(true);
  });

  it("answers decisions and revokes on uninstall", async () => {
    const asked = (
      await w.cap(w.alpha.token, "POST", "/decisions", {
        podId: w.podA.id,
        decisionClass: "strategy",
        title: "t",
        question: "q",
        options: ["a", "b"],
      })
    ).json();
    await w.adminApi("POST", `/decisions/${asked.id}/answer`, { option: "b" });
    expect((await w.cap(w.alpha.token, "GET", "/events")).json().events[0].payload.content).toBe("b");
    await w.adminApi("DELETE", `/registry/pods/${w.podA.id}/agents/alpha`);
    expect((await w.cap(w.alpha.token, "GET", "/events")).json().code).toBe("token_revoked");
  });
});
