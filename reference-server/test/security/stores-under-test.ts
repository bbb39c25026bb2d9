/**
 * The two stores for the security tests, each with a back door: `raw(sql, params)` writes straight into
 * the store's own tables, bypassing every HTTP limit, so a test can plant what an older kernel (or another
 * writer) may have left there. SQLite is a file of its own (a second connection writes to it); PostgreSQL
 * a schema of its own on CAP_TEST_PG_URL, skipped (saying so) when that is not set.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { Store } from "../../src/store/contract.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { freshPgSchema, pgSkipReason, pgTestUrl } from "../../src/testing/pg.js";

export interface OpenedStore {
  store: Store;
  /** Runs one statement with `?`-free positional parameters written `$1`, `$2`… on both stores. */
  raw(sql: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

export interface StoreUnderTest {
  name: string;
  /** Why this store is skipped here, or undefined. */
  skip: string | undefined;
  open(): Promise<OpenedStore>;
}

const sqlite: StoreUnderTest = {
  name: "SQLite",
  skip: undefined,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "cap-security-"));
    const path = join(dir, "kernel.db");
    const store = openSqliteStore({ path });
    const side = new Database(path);
    return {
      store,
      async raw(sql, params = []) {
        side.prepare(sql.replace(/\$\d+/g, "?")).run(...(params as unknown[]));
      },
      async close() {
        side.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: StoreUnderTest = {
  name: "PostgreSQL",
  skip: pgTestUrl ? undefined : pgSkipReason,
  async open() {
    const fresh = await freshPgSchema("cap_security");
    const store = await openPostgresStore({ url: pgTestUrl!, schema: fresh.schema });
    const side = new pg.Client({ connectionString: pgTestUrl });
    await side.connect();
    await side.query(`SET search_path TO "${fresh.schema}"`);
    // PostgreSQL's json parser recurses too (2 MB of stack by default: about 13,000 levels here); the back door
    // may plant deeper values than that.
    await side.query("SET max_stack_depth = '7MB'");
    return {
      store,
      async raw(sql, params = []) {
        await side.query(sql, params);
      },
      async close() {
        await side.end();
        await store.close();
        await fresh.drop();
      },
    };
  },
};

export const STORES: StoreUnderTest[] = [sqlite, postgres];
