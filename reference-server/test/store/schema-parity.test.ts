/**
 * One schema in two dialects: after every migration, SQLite and PostgreSQL have the same tables, the same
 * columns per table and the same index names (types may differ by dialect; names may not), and every
 * column of the row table (src/store/schema.ts) exists in both. Both schemas are read live from the
 * migrated databases (sqlite_master / pragma, information_schema / pg_indexes), not from the SQL files.
 */
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate as migratePostgres, quoteIdent } from "../../src/store/postgres/migrate.js";
import { EVENT_PAYLOAD_COLUMNS, TABLES } from "../../src/store/schema.js";
import { migrate as migrateSqlite } from "../../src/store/sqlite/migrate.js";
import { type LiveSchema, postgresSchema, sqliteSchema } from "./live-schema.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

/**
 * Each migration runner's own bookkeeping, not the store's schema: present in both, with columns of its
 * runner's making (PostgreSQL also records a checksum per migration).
 */
const RUNNER_TABLES = new Set(["schema_migrations"]);

function sqliteLive(): LiveSchema {
  const db = new Database(":memory:");
  try {
    migrateSqlite(db, 0);
    return sqliteSchema(db);
  } finally {
    db.close();
  }
}

/** The row table's columns that are missing from a live schema, as `table.column`. */
function rowTableGaps(live: LiveSchema): string[] {
  const gaps: string[] = [];
  for (const t of TABLES) {
    for (const c of t.columns) {
      const home = t.name === "events" && EVENT_PAYLOAD_COLUMNS.includes(c.name) ? "event_payloads" : t.name;
      if (!live.get(home)?.columns.includes(c.name)) gaps.push(`${home}.${c.name}`);
    }
  }
  return gaps;
}

describe("store schema (SQLite)", () => {
  it("has a column for every field of the row table", () => {
    const live = sqliteLive();
    expect(live.size).toBeGreaterThan(TABLES.length);
    expect(rowTableGaps(live)).toEqual([]);
  });
});

describe.skipIf(!url)(`store schema parity, SQLite and PostgreSQL${skipped}`, () => {
  const schema = `cap_parity_${randomBytes(5).toString("hex")}`;
  let client: pg.Client;
  let postgres: LiveSchema;
  let sqlite: LiveSchema;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await migratePostgres(client, schema, 0);
    postgres = await postgresSchema(client, schema);
    sqlite = sqliteLive();
  });
  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client?.end();
  });

  it("has the same tables", () => {
    expect([...postgres.keys()]).toEqual([...sqlite.keys()]);
    expect(postgres.size).toBeGreaterThan(TABLES.length);
  });

  it("has the same columns in every table", () => {
    const differ = (a: LiveSchema, b: LiveSchema) =>
      [...a]
        .filter(([t]) => !RUNNER_TABLES.has(t))
        .flatMap(([t, { columns }]) =>
          columns.filter((c) => !b.get(t)?.columns.includes(c)).map((c) => `${t}.${c}`),
        );
    expect({ onlyInSqlite: differ(sqlite, postgres), onlyInPostgres: differ(postgres, sqlite) }).toEqual({
      onlyInSqlite: [],
      onlyInPostgres: [],
    });
  });

  it("has the same index names on every table", () => {
    const indexes = (s: LiveSchema) =>
      [...s].flatMap(([t, { indexes }]) => indexes.map((i) => `${t}.${i}`)).sort();
    expect(indexes(postgres)).toEqual(indexes(sqlite));
    expect(indexes(sqlite)).toContain("events.events_pending");
    expect(indexes(sqlite)).not.toContain("events.events_open");
  });

  it("has a column for every field of the row table", () => {
    expect(rowTableGaps(postgres)).toEqual([]);
  });
});
