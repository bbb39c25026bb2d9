/**
 * Versioned migrations for the SQLite store: `migrations/NNN-name.sql`, applied in order, each in its own
 * transaction, recorded in `schema_migrations`. Must never edit an applied migration; add a new file.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
export function migrate(db, now) {
    db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
    const applied = new Set(db.prepare("SELECT version FROM schema_migrations").all().map((r) => r.version));
    const files = readdirSync(MIGRATIONS_DIR)
        .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
        .sort();
    const done = [];
    for (const file of files) {
        const version = file.replace(/\.sql$/, "");
        if (applied.has(version))
            continue;
        const sql = readFileSync(join(MIGRATIONS_DIR, file), "utf8");
        db.transaction(() => {
            db.exec(sql);
            db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version, now);
        })();
        done.push(version);
    }
    return done;
}
//# sourceMappingURL=migrate.js.map