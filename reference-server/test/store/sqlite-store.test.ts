import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLAIM_PENDING_SQL, POLL_DELIVERIES_SQL, READY_SQL } from "../../src/store/sqlite/events/claim.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { runStoreContract } from "./contract-suite.js";
import { groupCommitSuite } from "./group-commit-suite.js";

// The accelerated store (what serve runs) and the plain one (--no-accelerate) keep the same contract.
runStoreContract(async () => openSqliteStore({ path: ":memory:" }), "sqlite");
runStoreContract(async () => openSqliteStore({ path: ":memory:", accelerate: false }), "sqlite plain");

describe("sqlite store specifics", () => {
  // The claim's ready read (migrations/006): new work from events_pending in index order, ended leases
  // from events_leased, never a scan of the agent's events or of the table.
  it("reads ready events through the pending and leased indexes only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-plan-"));
    const path = join(dir, "k.db");
    try {
      await openSqliteStore({ path }).close();
      // biome-ignore lint/suspicious/noExplicitAny: reaching into the driver for EXPLAIN only
      const Database = (await import("better-sqlite3")).default as any;
      const db = new Database(path, { readonly: true });
      const plan = (sql: string) =>
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all({
            agentId: "a",
            now: 5,
            maxAttempts: 5,
            limit: 10,
            ...(sql.includes("@pollId") ? { pollId: "p" } : {}),
          })
          .map((r: { detail: string }) => r.detail)
          .join("\n");
      const [pending, ended] = [plan(READY_SQL.pending), plan(READY_SQL.endedLeases)];
      const replay = plan(POLL_DELIVERIES_SQL);
      const positional = (sql: string) =>
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...(sql.includes("json_each") ? ["[1]"] : [5, "a", 9]))
          .map((r: { detail: string }) => r.detail)
          .join("\n");
      const [claim, readBack] = [positional(CLAIM_PENDING_SQL.update), positional(CLAIM_PENDING_SQL.read)];
      const claimForPoll = db
        .prepare(`EXPLAIN QUERY PLAN ${CLAIM_PENDING_SQL.updateForPoll}`)
        .all(5, "poll-1", "a", 9)
        .map((r: { detail: string }) => r.detail)
        .join("\n");
      db.close();
      // In seq order straight from the index: no sort, no table read.
      expect(pending).toBe("SEARCH events USING COVERING INDEX events_pending (agent_id=?)");
      expect(ended).toBe("SEARCH events USING INDEX events_leased (agent_id=? AND lease_expires_at<?)");
      // The claim of pending events walks only this agent's pending entries up to the last one read, in one
      // pass (no trigger may fire on a claim: with one, SQLite collects the rows first); its read-back
      // looks each claimed row up by seq.
      expect(claim).toBe("SEARCH events USING INDEX events_pending (agent_id=? AND seq<?)");
      // A repeated poll reads only the agent's running leases for its deliveries.
      expect(replay).toMatch(/^SEARCH e USING INDEX events_leased \(agent_id=\? AND lease_expires_at>\?\)/);
      // A poll's claim records its pollId in the same UPDATE, by the same walk.
      expect(claimForPoll).toBe("SEARCH events USING INDEX events_pending (agent_id=? AND seq<?)");
      expect(readBack).toMatch(/^SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("sqlite migration 004 (payloads apart from queue rows)", () => {
  it("keeps the payload of every event written before it, and the queue serves them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-mig004-"));
    const path = join(dir, "k.db");
    try {
      // biome-ignore lint/suspicious/noExplicitAny: the driver, to build a database at schema 003
      const Database = (await import("better-sqlite3")).default as any;
      const old = new Database(path);
      old.exec("CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
      for (const v of ["001-initial", "002-release-poll-replay", "003-leased-index"]) {
        old.exec(
          readFileSync(new URL(`../../src/store/sqlite/migrations/${v}.sql`, import.meta.url), "utf8"),
        );
        old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(v);
      }
      const insert = old.prepare(
        "INSERT INTO events (id, agent_id, pod_id, type, payload, state, attempts, created_at) VALUES (?, 'agt_a', 'pod_a', 'message.posted', ?, ?, 0, 1)",
      );
      insert.run("evt_1", JSON.stringify({ n: 1, text: "first" }), "pending");
      insert.run("evt_2", JSON.stringify({ n: 2 }), "acked");
      old.close();

      const store = openSqliteStore({ path });
      try {
        expect((await store.getEvent("evt_2"))?.payload).toEqual({ n: 2 });
        const claimed = await store.claimEvents({
          agentId: "agt_a",
          limit: 10,
          leaseMs: 1000,
          maxAttempts: 3,
          now: 10,
        });
        expect(claimed.events.map((e) => [e.id, JSON.parse(e.payloadJson)])).toEqual([
          ["evt_1", { n: 1, text: "first" }],
        ]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

groupCommitSuite("sqlite", async (path = ":memory:", options = {}) => openSqliteStore({ path, ...options }));
