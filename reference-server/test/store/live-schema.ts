/**
 * The live schema of a migrated database, read from the database itself (not from the migration files):
 * per table, its column names and the names of the indexes created by CREATE INDEX (not the ones a
 * PRIMARY KEY or UNIQUE constraint creates, whose names each dialect makes up: sqlite_autoindex_… / …_pkey).
 */
import type Database from "better-sqlite3";
import type pg from "pg";

export type LiveSchema = Map<string, { columns: string[]; indexes: string[] }>;

export function sqliteSchema(db: Database.Database): LiveSchema {
  const out: LiveSchema = new Map();
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const t of tables) {
    const columns = (db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name).sort();
    const indexes = (db.pragma(`index_list(${t})`) as { name: string; origin: string }[])
      .filter((i) => i.origin === "c")
      .map((i) => i.name)
      .sort();
    out.set(t, { columns, indexes });
  }
  return out;
}

export async function postgresSchema(client: pg.Client | pg.PoolClient, schema: string): Promise<LiveSchema> {
  const out: LiveSchema = new Map();
  const tables = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
    [schema],
  );
  for (const { table_name } of tables.rows) out.set(table_name, { columns: [], indexes: [] });
  const columns = await client.query<{ table_name: string; column_name: string }>(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1",
    [schema],
  );
  for (const r of columns.rows) out.get(r.table_name)?.columns.push(r.column_name);
  const indexes = await client.query<{ tablename: string; indexname: string }>(
    `SELECT tablename, indexname FROM pg_indexes i
      WHERE schemaname = $1
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                         WHERE c.conname = i.indexname AND c.connamespace = $1::regnamespace)`,
    [schema],
  );
  for (const r of indexes.rows) out.get(r.tablename)?.indexes.push(r.indexname);
  for (const t of out.values()) {
    t.columns.sort();
    t.indexes.sort();
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}
