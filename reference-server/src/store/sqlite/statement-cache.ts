/**
 * Prepared statements for SQL that is put together per call (optional filters): prepared once per
 * distinct text and reused, as the fixed statements of each op module are. The texts come from a few
 * code paths, never from input, so the cache stays small.
 */
import type Database from "better-sqlite3";

export function statementCache(db: Database.Database) {
  const cache = new Map<string, Database.Statement>();
  return (sql: string): Database.Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
}
