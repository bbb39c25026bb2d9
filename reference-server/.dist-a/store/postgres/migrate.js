/**
 * Versioned migrations for the PostgreSQL store: `migrations/NNN-name.sql`, applied in order, all pending
 * ones in one transaction, recorded in `schema_migrations` with a checksum. A transaction-scoped advisory
 * lock keyed by the schema serialises replicas that start at once: the second waits, then finds nothing
 * left to do.
 *
 * Must never: re-apply a recorded version, or start a store on a schema whose recorded migration differs
 * from the file (an edited migration is a bug; add a new one instead).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
/** The migrations folder beside this module; from a build without copied assets, the source folder. */
export function migrationsDir() {
    const here = dirname(fileURLToPath(import.meta.url));
    const candidates = [
        join(here, "migrations"),
        join(here, "..", "..", "..", "src", "store", "postgres", "migrations"),
    ];
    const found = candidates.find((d) => existsSync(d));
    if (!found)
        throw new Error(`PostgreSQL migrations not found (looked in ${candidates.join(", ")})`);
    return found;
}
export function loadMigrations(dir = migrationsDir()) {
    const out = [];
    for (const file of readdirSync(dir).sort()) {
        const m = /^(\d{3})-([a-z0-9-]+)\.sql$/.exec(file);
        if (!m)
            continue;
        const sql = readFileSync(join(dir, file), "utf8");
        out.push({
            version: Number(m[1]),
            name: m[2],
            sql,
            checksum: createHash("sha256").update(sql).digest("hex"),
        });
    }
    out.forEach((mig, i) => {
        if (mig.version !== i + 1)
            throw new Error(`PostgreSQL migrations must be numbered 001, 002, …: ${mig.name}`);
    });
    return out;
}
export function quoteIdent(name) {
    return `"${name.replaceAll('"', '""')}"`;
}
/**
 * Applies pending migrations to `schema` (created if missing). Returns the versions applied now.
 * `migrations`: the list to apply, by default all of them (a test builds a schema at an older version).
 */
export async function migrate(client, schema, now, migrations = loadMigrations()) {
    const applied = [];
    await client.query("BEGIN");
    try {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
            `cap-kernel:migrate:${schema}`,
        ]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
        await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
        await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
        const done = new Map();
        for (const r of (await client.query("SELECT version, checksum FROM schema_migrations")).rows) {
            done.set(Number(r.version), String(r.checksum));
        }
        for (const mig of migrations) {
            const recorded = done.get(mig.version);
            if (recorded !== undefined) {
                if (recorded !== mig.checksum) {
                    throw new Error(`PostgreSQL migration ${mig.version}-${mig.name} was changed after it was applied`);
                }
                continue;
            }
            await client.query(mig.sql);
            await client.query("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)", [mig.version, mig.name, mig.checksum, now]);
            applied.push(mig.version);
        }
        const newest = Math.max(0, ...done.keys());
        if (newest > migrations.length) {
            throw new Error(`schema ${schema} is at migration ${newest}, newer than this kernel knows (${migrations.length})`);
        }
        await client.query("COMMIT");
    }
    catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
    }
    return applied;
}
//# sourceMappingURL=migrate.js.map