/**
 * WAL checkpoints off the event loop (sqlite/checkpointer.ts): the thread backfills the WAL into the
 * database file while the writer keeps appending, never loses a commit, and stops with close(); the store
 * starts it only once its WAL holds enough frames, and its own commits then no longer checkpoint.
 */
import { mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/contract.js";
import { startCheckpointer } from "../../src/store/sqlite/checkpointer.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { eventually } from "../../src/testing/deadline.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function aPath() {
  const d = mkdtempSync(join(tmpdir(), "cap-ckpt-"));
  dirs.push(d);
  return join(d, "k.db");
}

/** nBackfill of the wal-index (byte 96 of -shm, walformat.html): WAL frames already in the database file. */
function backfilled(path: string): number {
  const fd = openSync(`${path}-shm`, "r");
  const buf = Buffer.alloc(4);
  readSync(fd, buf, 0, 4, 96);
  return endianness() === "LE" ? buf.readUInt32LE(0) : buf.readUInt32BE(0);
}

/** 40 commits of a 5 kB event each (more than 20 WAL frames), the store looking at its file after each. */
async function writeFrames(store: Store) {
  for (let i = 0; i < 40; i++) {
    await store.enqueueEvents([
      {
        id: `evt_${i}`,
        agentId: "agt_x",
        podId: "pod_x",
        type: "message.posted",
        payload: { text: "p".repeat(5000) },
        createdAt: i,
      },
    ]);
    store.changes.authTrusted();
  }
}

describe("the checkpoint thread", () => {
  it("backfills the WAL once it has grown by minFrames, while the writer goes on, and loses nothing", async () => {
    const path = aPath();
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma("wal_autocheckpoint = 0"); // only the thread checkpoints here
    db.exec("CREATE TABLE t (x INTEGER PRIMARY KEY, pad TEXT)");
    const insert = db.prepare("INSERT INTO t (pad) VALUES (?)");
    const ckpt = startCheckpointer({ path, minFrames: 100, intervalMs: 10 });
    for (let i = 0; i < 10; i++) insert.run("x".repeat(200)); // a frame or two each
    await new Promise((r) => setTimeout(r, 100));
    expect(ckpt.checkpoints).toBe(0); // under minFrames: nothing to do yet
    for (let i = 0; i < 200; i++) insert.run("y".repeat(3000)); // a frame or more per commit
    // The backfill shows in the WAL index before the thread's count reaches this thread: wait for both.
    await eventually(() => backfilled(path) > 0 && ckpt.checkpoints > 0, "the thread has checkpointed");
    for (let i = 0; i < 50; i++) insert.run("z");
    await ckpt.close();
    expect((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(260);
    db.close();
    // Everything committed is in the file: a fresh connection sees all of it.
    const again = new Database(path);
    expect((again.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(260);
    again.close();
  });

  it("stops at once on close(), and close() twice is harmless", async () => {
    const path = aPath();
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE t (x INTEGER)");
    const ckpt = startCheckpointer({ path, intervalMs: 60_000 });
    const started = Date.now();
    await ckpt.close();
    await ckpt.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    db.close();
  });

  it("is started by the store once its WAL is big enough, and then does the checkpoints", async () => {
    const path = aPath();
    const store = openSqliteStore({ path, checkpointThreadFrames: 20 });
    const before = backfilled(path);
    await writeFrames(store);
    await eventually(() => backfilled(path) > before, "the store's checkpoint thread has checkpointed");
    expect((await store.queueStats()).pending).toBe(40);
    await store.close();
  });

  it("is never started with checkpointThreadFrames: false", async () => {
    const path = aPath();
    const store = openSqliteStore({ path, checkpointThreadFrames: false });
    await writeFrames(store);
    await new Promise((r) => setTimeout(r, 300));
    expect(backfilled(path)).toBe(0);
    await store.close();
  });
});
