import type pg from "pg";
export interface Migration {
    version: number;
    name: string;
    sql: string;
    checksum: string;
}
/** The migrations folder beside this module; from a build without copied assets, the source folder. */
export declare function migrationsDir(): string;
export declare function loadMigrations(dir?: string): Migration[];
export declare function quoteIdent(name: string): string;
/**
 * Applies pending migrations to `schema` (created if missing). Returns the versions applied now.
 * `migrations`: the list to apply, by default all of them (a test builds a schema at an older version).
 */
export declare function migrate(client: pg.PoolClient | pg.Client, schema: string, now: number, migrations?: Migration[]): Promise<number[]>;
