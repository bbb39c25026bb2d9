/**
 * The SQLite store (better-sqlite3): a file in WAL mode by default, `:memory:` for tests.
 *
 * Opening it applies the pragmas and pending migrations, builds the plain store — one module per noun
 * (people, agents, events, content), every op synchronous and atomic, run one at a time under the store's
 * lock (transactions.ts) — and then applies the accelerators (accelerators.ts) unless `accelerate` is
 * false (assemble.ts). One process per database file serves: the several-replica deployment is the
 * PostgreSQL store's.
 */
import type { Store } from "../contract.js";
import { SQLITE_ACCELERATORS } from "./accelerators.js";
import { assembleSqliteStore } from "./assemble.js";
import type { SqliteStoreOptions } from "./options.js";

export type { SqliteStoreOptions } from "./options.js";

export function openSqliteStore(options: SqliteStoreOptions): Store {
  return assembleSqliteStore(options, options.accelerate === false ? [] : SQLITE_ACCELERATORS);
}
