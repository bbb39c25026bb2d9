import type Database from "better-sqlite3";
export declare function migrate(db: Database.Database, now: number): string[];
