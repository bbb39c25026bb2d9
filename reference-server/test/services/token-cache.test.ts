/**
 * The runtime-token cache: repeated requests of one token cost no store read, and revocation, uninstall
 * and user deletion still take effect on the very next request — in one process (SQLite) and across two
 * PostgreSQL stores on one schema (two replicas in one process, invalidated through LISTEN/NOTIFY), and
 * on SQLite also when another process (an operator command) writes the file. While
 * a replica's LISTEN connection is down it does not cache at all.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app.js";
import { createTokenCache } from "../../src/services/token-cache.js";
import type { RuntimeTokenAuth, Store, StoreChange } from "../../src/store/contract.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";

/** The store with a counter of token look-ups that reach it. */
function counting<S extends Store>(store: S): { store: S; lookups: () => number } {
  let n = 0;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "findRuntimeTokenByHash")
        return (hash: string) => {
          n++;
          return target.findRuntimeTokenByHash(hash);
        };
      return Reflect.get(target, prop, receiver);
    },
  });
  return { store: wrapped, lookups: () => n };
}

const info = (w: World, token: string) => w.cap(token, "GET", "/info");

describe("the token cache on SQLite", () => {
  let w: World;
  let lookups: () => number;
  afterEach(async () => {
    await w.app.close();
    await w.store.close();
  });
  const open = async () => {
    const c = counting(openSqliteStore({ path: ":memory:" }));
    lookups = c.lookups;
    w = await makeWorld({ store: c.store });
  };

  it("serves repeated requests of a token without reading the store again", async () => {
    await open();
    expect((await info(w, w.alpha.token)).statusCode).toBe(200);
    const after1 = lookups();
    for (let i = 0; i < 5; i++) expect((await info(w, w.alpha.token)).statusCode).toBe(200);
    expect(lookups()).toBe(after1);
  });

  it("refuses a cached token on the next request after it is revoked", async () => {
    await open();
    await info(w, w.alpha.token);
    const warm = lookups();
    expect((await info(w, w.alpha.token)).statusCode).toBe(200);
    expect(lookups()).toBe(warm);
    const del = await w.adminApi(
      "DELETE",
      `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens/${w.alpha.tokenId}`,
    );
    expect(del.statusCode).toBe(200);
    expect((await info(w, w.alpha.token)).json().code).toBe("token_revoked");
    expect((await info(w, w.beta.token)).statusCode).toBe(200);
  });

  it("refuses a cached token on the next request after its agent is uninstalled", async () => {
    await open();
    await info(w, w.alpha.token);
    await info(w, w.alpha.token);
    expect((await w.adminApi("DELETE", `/registry/pods/${w.podA.id}/agents/alpha`)).statusCode).toBe(200);
    expect((await info(w, w.alpha.token)).json().code).toBe("token_revoked");
  });

  it("refuses a cached token on the next request after the human who issued it is deleted", async () => {
    await open();
    const bob = await w.kernel.users.createUser({ name: "bob", isAdmin: false });
    await w.adminApi("POST", `/pods/${w.podA.id}/members`, { userId: bob.user.id, role: "admin" });
    // bob owns the identity he installs, so he may mint its token (identity ownership, CAP-AUTH-9).
    const install = { agentName: "alpha", podId: w.podA.id, instanceId: "bobs" };
    expect((await w.adminApi("POST", "/registry/install", install, bob.token)).statusCode).toBe(201);
    const issued = await w.adminApi(
      "POST",
      `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`,
      { instanceId: "bobs" },
      bob.token,
    );
    const token = issued.json().token as string;
    await info(w, token);
    const warm = lookups();
    expect((await info(w, token)).statusCode).toBe(200);
    expect(lookups()).toBe(warm);
    expect((await w.adminApi("DELETE", `/users/${bob.user.id}`)).statusCode).toBe(200);
    expect((await info(w, token)).json().code).toBe("token_revoked");
  });

  /** A world on a database file, its token cache warm; returns the file and the counting store. */
  async function fileWorld() {
    const file = join(mkdtempSync(join(tmpdir(), "cap-tcache-")), "k.db");
    const c = counting(openSqliteStore({ path: file }));
    lookups = c.lookups;
    w = await makeWorld({ store: c.store });
    await info(w, w.alpha.token);
    const warm = lookups();
    expect((await info(w, w.alpha.token)).statusCode).toBe(200);
    expect(lookups()).toBe(warm);
    return { file, store: c.store };
  }

  /** What `cap-kernel tokens revoke --db sqlite:FILE` does while the kernel serves that file. */
  async function revokeFromAnotherProcess(file: string, tokenId: string) {
    const operator = openSqliteStore({ path: file });
    try {
      expect(await operator.revokeRuntimeToken(tokenId, Date.now())).toBe(true);
    } finally {
      await operator.close();
    }
  }

  it("refuses a cached token once another process revoked it in the same database file", async () => {
    const { file } = await fileWorld();
    await revokeFromAnotherProcess(file, w.alpha.tokenId);
    expect((await info(w, w.alpha.token)).json().code).toBe("token_revoked");
  });

  it("refuses a cached token revoked by another process just after a commit of its own that wrote nothing", async () => {
    const { file, store } = await fileWorld();
    // A transaction that only reads commits without writing a page: the file's change counter stays put,
    // so the revocation below is the only commit that moves it.
    expect(await store.transaction((tx) => tx.getEvent("evt_none"))).toBeNull();
    await revokeFromAnotherProcess(file, w.alpha.tokenId);
    expect((await info(w, w.alpha.token)).json().code).toBe("token_revoked");
  });

  it("answers another process's revocation only after its settle wait, so the next request is refused", async () => {
    const { file } = await fileWorld();
    // Warm again right before: the serving store has just looked at the file.
    expect((await info(w, w.alpha.token)).statusCode).toBe(200);
    const operator = openSqliteStore({ path: file });
    try {
      const started = performance.now();
      expect(await operator.revokeRuntimeToken(w.alpha.tokenId, Date.now())).toBe(true);
      // The serving store looks at the file at most every 5 ms; the writer waits 10 ms after its commit.
      expect(performance.now() - started).toBeGreaterThanOrEqual(10);
      expect((await info(w, w.alpha.token)).json().code).toBe("token_revoked");
    } finally {
      await operator.close();
    }
  });

  it("sees a revocation written to the file by any other means within its look interval", async () => {
    const { file } = await fileWorld();
    // A raw write: not through a store, so no settle wait; the serving store's next look finds it.
    const raw = new Database(file);
    raw.prepare("UPDATE runtime_tokens SET revoked_at = ? WHERE id = ?").run(Date.now(), w.alpha.tokenId);
    raw.close();
    await eventually(
      async () => (await info(w, w.alpha.token)).json().code,
      (code) => code === "token_revoked",
    );
  });

  it("caches nothing while the store cannot promise to announce auth changes", async () => {
    const inner = openSqliteStore({ path: ":memory:" });
    const untrusted = {
      ...inner.changes,
      authTrusted: () => false,
      subscribe: inner.changes.subscribe.bind(inner.changes),
      readyComplete: () => inner.changes.readyComplete(),
    };
    const c = counting({ ...inner, changes: untrusted } as Store);
    lookups = c.lookups;
    w = await makeWorld({ store: c.store });
    await info(w, w.alpha.token);
    const first = lookups();
    await info(w, w.alpha.token);
    expect(lookups()).toBe(first + 1);
  });
});

describe("the token cache itself", () => {
  it("reads the store on every look-up when turned off (serve --no-accelerate)", async () => {
    let reads = 0;
    const auth = { token: { id: "rtk_1" } } as unknown as RuntimeTokenAuth;
    const store = {
      changes: { subscribe: () => () => undefined, authTrusted: () => true, authMaxAgeMs: 5000 },
      findRuntimeTokenByHash: async () => {
        reads++;
        return auth;
      },
    } as unknown as Store;
    for (const [enabled, want] of [
      [true, 1],
      [false, 3],
    ] as const) {
      reads = 0;
      const cache = createTokenCache(store, enabled);
      for (let i = 0; i < 3; i++) expect(await cache.lookup("h")).toBe(auth);
      expect({ enabled, reads, peeked: cache.peek("h") !== undefined }).toEqual({
        enabled,
        reads: want,
        peeked: enabled,
      });
      cache.close();
    }
  });

  it("does not keep a look-up that raced an invalidation", async () => {
    const listeners: ((change: StoreChange) => void)[] = [];
    let release!: (a: RuntimeTokenAuth) => void;
    let reads = 0;
    const auth = { token: { id: "rtk_1" } } as unknown as RuntimeTokenAuth;
    const store = {
      changes: {
        subscribe: (l: (change: StoreChange) => void) => {
          listeners.push(l);
          return () => undefined;
        },
        authTrusted: () => true,
        authMaxAgeMs: 5000,
      },
      findRuntimeTokenByHash: () => {
        reads++;
        return reads === 1 ? new Promise<RuntimeTokenAuth>((r) => (release = r)) : Promise.resolve(auth);
      },
    } as unknown as Store;
    const cache = createTokenCache(store);
    const racing = cache.lookup("h");
    for (const l of listeners) l({ kind: "auth" }); // a revocation commits while the read is in flight
    release(auth);
    expect(await racing).toBe(auth);
    expect(cache.size).toBe(0);
    await cache.lookup("h");
    expect(cache.size).toBe(1);
    expect(reads).toBe(2);
  });
});

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

describe.skipIf(!url)(`the token cache across two PostgreSQL replicas${skipped}`, () => {
  const schemas: string[] = [];
  const opened: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });

  /** Replica 1: a world (admin API and CAP); replica 2: another store and app on the same schema. */
  async function twoReplicas() {
    const schema = `cap_tcache_${randomBytes(5).toString("hex")}`;
    schemas.push(schema);
    const s1 = await openPostgresStore({ url: url!, schema });
    opened.push(s1);
    const w = await makeWorld({ store: s1 });
    opened.push(w.app);
    const c2 = counting(await openPostgresStore({ url: url!, schema }));
    opened.push(c2.store);
    const app2 = await buildApp({ store: c2.store, logger: false });
    opened.push(app2);
    const on2 = (token: string) =>
      app2.inject({
        method: "GET",
        url: "/api/agents/runtime/info",
        headers: { authorization: `Bearer ${token}` },
      });
    /** Two requests on replica 2, the second served from its cache. */
    const warm = async (token: string) => {
      expect((await on2(token)).statusCode).toBe(200);
      const n = c2.lookups();
      expect((await on2(token)).statusCode).toBe(200);
      expect(c2.lookups()).toBe(n);
    };
    return { w, store2: c2.store as PostgresStore, lookups2: c2.lookups, on2, warm };
  }

  it("refuses a token on the other replica's next request once it is revoked through one", async () => {
    const { w, on2, warm } = await twoReplicas();
    await warm(w.alpha.token);
    const del = await w.adminApi(
      "DELETE",
      `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens/${w.alpha.tokenId}`,
    );
    expect(del.statusCode).toBe(200);
    expect((await on2(w.alpha.token)).json().code).toBe("token_revoked");
  });

  it("refuses a token on the other replica after an uninstall and after its issuer's deletion", async () => {
    const { w, on2, warm } = await twoReplicas();
    await warm(w.alpha.token);
    expect((await w.adminApi("DELETE", `/registry/pods/${w.podA.id}/agents/alpha`)).statusCode).toBe(200);
    expect((await on2(w.alpha.token)).json().code).toBe("token_revoked");

    const bob = await w.kernel.users.createUser({ name: "bob", isAdmin: false });
    await w.adminApi("POST", `/pods/${w.podA.id}/members`, { userId: bob.user.id, role: "admin" });
    // bob owns the identity he installs, so he may mint its token (identity ownership, CAP-AUTH-9).
    const install = { agentName: "beta", podId: w.podA.id, instanceId: "bobs" };
    expect((await w.adminApi("POST", "/registry/install", install, bob.token)).statusCode).toBe(201);
    const issued = await w.adminApi(
      "POST",
      `/registry/pods/${w.podA.id}/agents/beta/runtime-tokens`,
      { instanceId: "bobs" },
      bob.token,
    );
    const token = issued.json().token as string;
    await warm(token);
    expect((await w.adminApi("DELETE", `/users/${bob.user.id}`)).statusCode).toBe(200);
    expect((await on2(token)).json().code).toBe("token_revoked");
  });

  it("reads the store on every request while its LISTEN connection is down, and caches again after", async () => {
    const { w, store2, lookups2, on2, warm } = await twoReplicas();
    await warm(w.alpha.token);
    const pid = store2.listener.backendPid;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    } finally {
      await admin.end();
    }
    // The listener reconnects by itself; until it does, every request reads the store.
    await eventually(
      async () => store2.listener.backendPid,
      (p) => p !== pid,
    );
    const n = lookups2();
    expect((await on2(w.alpha.token)).statusCode).toBe(200);
    expect(lookups2()).toBe(n + 1); // the reconnect dropped the cache: missed NOTIFYs are not trusted
    await eventually(
      async () => store2.listener.backendPid,
      (p) => p !== null,
    );
    await warm(w.alpha.token);
  });
});
