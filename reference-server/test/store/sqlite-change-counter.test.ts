/**
 * The wal-index change counter (sqlite/change-counter.ts) that lets the SQLite store skip
 * `PRAGMA data_version` when nothing was committed: it must move on every commit by any connection, and
 * answer null whenever it cannot be read, so the store falls back to data_version.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openChangeCounter } from "../../src/store/sqlite/change-counter.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const aDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cap-counter-"));
  dirs.push(d);
  return d;
};

function walFile() {
  const dir = aDir();
  const path = join(dir, "k.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (x INTEGER)");
  return { path, db };
}

describe("the wal-index change counter", () => {
  it("moves on every commit, by this connection or another, and stays put otherwise", () => {
    const { path, db } = walFile();
    const counter = openChangeCounter(path);
    const other = new Database(path);
    const seen: (number | null)[] = [counter.read()];
    db.prepare("INSERT INTO t VALUES (1)").run();
    seen.push(counter.read());
    db.prepare("SELECT count(*) FROM t").get(); // a read commits nothing
    seen.push(counter.read());
    other.prepare("INSERT INTO t VALUES (2)").run();
    seen.push(counter.read());
    const [a, b, c, d] = seen as number[];
    expect(typeof a).toBe("number");
    expect(b).not.toBe(a);
    expect(c).toBe(b);
    expect(d).not.toBe(c);
    counter.close();
    other.close();
    db.close();
  });

  it("reads the WAL's frame count with the counter: it grows with commits and drops when the WAL restarts", () => {
    const { path, db } = walFile();
    const counter = openChangeCounter(path);
    counter.read();
    const before = counter.frames;
    db.prepare("INSERT INTO t VALUES (1)").run();
    counter.read();
    const after = counter.frames;
    expect(after).toBeGreaterThan(before);
    // The frame count SQLite itself reports for the WAL.
    const [passive] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
    expect(after).toBe(passive?.log);
    db.pragma("wal_checkpoint(TRUNCATE)"); // backfills everything and restarts the WAL
    counter.read();
    expect(counter.frames).toBe(0);
    counter.close();
    db.close();
  });

  it("answers null without a -shm file and after it is closed", () => {
    expect(openChangeCounter(join(aDir(), "absent.db")).read()).toBeNull();
    const { path, db } = walFile();
    const counter = openChangeCounter(path);
    expect(counter.read()).not.toBeNull();
    counter.close();
    expect(counter.read()).toBeNull();
    db.close();
  });
});
