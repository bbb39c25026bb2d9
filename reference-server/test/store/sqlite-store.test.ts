import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { groupCommitSuite } from "./ack-batch-suite.js";
import { runStoreContract } from "./contract-suite.js";

runStoreContract(async () => openSqliteStore({ path: ":memory:" }), "sqlite");

describe("sqlite store specifics", () => {
  it("claims through the ready index in insertion order, without a sort step", async () => {
    const store = openSqliteStore({ path: ":memory:" });
    // biome-ignore lint/suspicious/noExplicitAny: reaching into the driver for EXPLAIN only
    const Database = (await import("better-sqlite3")).default as any;
    const db = new Database(":memory:");
    db.exec(
      "CREATE TABLE events (seq INTEGER PRIMARY KEY, agent_id TEXT, state TEXT, lease_expires_at INTEGER, attempts INTEGER);" +
        "CREATE INDEX events_ready ON events (agent_id, seq) WHERE state IN ('pending', 'leased');",
    );
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT seq FROM events WHERE agent_id = 'a' AND state IN ('pending', 'leased')
         AND (state = 'pending' OR lease_expires_at <= 5) AND attempts < 5 ORDER BY seq LIMIT 10`,
      )
      .all()
      .map((r: { detail: string }) => r.detail)
      .join("\n");
    expect(plan).toContain("events_ready");
    expect(plan).not.toContain("TEMP B-TREE");
    await store.close();
  });
});

groupCommitSuite("sqlite", async () => openSqliteStore({ path: ":memory:" }));
