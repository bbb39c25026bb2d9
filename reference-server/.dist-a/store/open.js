import { openSqliteStore } from "./sqlite/index.js";
export async function openStore(url) {
    if (url.startsWith("sqlite:")) {
        // CAP_SQLITE_BUSY_TIMEOUT_MS: how long a request waits for a file another process holds locked before
        // it answers 503 store_unavailable (default 5000).
        const busy = Number(process.env.CAP_SQLITE_BUSY_TIMEOUT_MS);
        return openSqliteStore({
            path: url.slice("sqlite:".length) || ":memory:",
            ...(Number.isFinite(busy) && busy >= 0 && process.env.CAP_SQLITE_BUSY_TIMEOUT_MS
                ? { busyTimeoutMs: busy }
                : {}),
        });
    }
    if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
        const modulePath = "./postgres/index.js";
        let mod;
        try {
            mod = await import(modulePath);
        }
        catch (err) {
            throw new Error(`the PostgreSQL store is not available in this build: ${err.message}`);
        }
        if (!mod.openPostgresStore)
            throw new Error("the PostgreSQL store module has no openPostgresStore export");
        return mod.openPostgresStore({ url });
    }
    throw new Error(`unsupported --db URL "${url}": use sqlite:PATH, sqlite::memory: or postgres://…`);
}
//# sourceMappingURL=open.js.map