/**
 * Prepared statements for SQL that is put together per call (optional filters): prepared once per
 * distinct text and reused, as the fixed statements of each op module are. The texts come from a few
 * code paths, never from input, so the cache stays small.
 */
import type Database from "better-sqlite3";
export declare function statementCache(db: Database.Database): (sql: string) => Database.Statement;
