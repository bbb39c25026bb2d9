/**
 * A store that cannot be reached is an outage, not a fault (CAP-ERR-9): the request answers 503
 * store_unavailable with Retry-After — never 500 — nothing of it is applied, /readyz answers 503, and the
 * kernel serves again once the store is back. SQLite: another process holds the file's write lock past
 * the busy timeout. (The PostgreSQL restart under load is test/replicas/store-outage.test.ts.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { makeWorld, type World } from "../helpers/world.js";

describe("a locked SQLite file", () => {
  let w: World;
  let dir = "";
  afterEach(async () => {
    await w?.app.close();
    await w?.store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 store_unavailable with Retry-After while locked, applies nothing, and serves again after", async () => {
    dir = mkdtempSync(join(tmpdir(), "cap-outage-"));
    const file = join(dir, "kernel.db");
    w = await makeWorld({ store: openSqliteStore({ path: file, busyTimeoutMs: 50 }) });
    const post = () => w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, { content: "@beta hi" });
    expect((await post()).statusCode).toBe(201);

    // Another process (here: another connection) takes the write lock and keeps it.
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    const before = (await w.adminApi("GET", `/pods/${w.podA.id}/messages`)).json();
    const answers = [
      await post(),
      await w.cap(w.beta.token, "GET", "/events"),
      await w.cap(w.beta.token, "PUT", "/memory", { content: "x" }),
    ];
    for (const r of answers) {
      expect(r.statusCode).toBe(503);
      expect(r.json().code).toBe("store_unavailable");
      expect(r.headers["retry-after"]).toBe("1");
    }
    other.exec("ROLLBACK");
    other.close();

    // Nothing of the refused requests was applied: no message, no claimed event, no memory write.
    expect((await w.adminApi("GET", `/pods/${w.podA.id}/messages`)).json()).toEqual(before);
    const [event] = (await w.cap(w.beta.token, "GET", "/events")).json().events;
    expect(event.attempts).toBe(1);
    expect((await w.cap(w.beta.token, "GET", "/memory")).json().content).toBe("");
    expect((await post()).statusCode).toBe(201);
    expect((await w.req({ url: "/readyz" })).statusCode).toBe(200);
  });
});
