/**
 * Opens a store from a `--db` URL: `sqlite:PATH`, `sqlite::memory:`, or `postgres://…` / `postgresql://…`
 * (the PostgreSQL store is loaded only when asked for).
 */
import type { Store } from "./contract.js";
import { openSqliteStore } from "./sqlite/index.js";

export async function openStore(url: string): Promise<Store> {
  if (url.startsWith("sqlite:")) return openSqliteStore({ path: url.slice("sqlite:".length) || ":memory:" });
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const modulePath = "./postgres/index.js";
    let mod: { openPostgresStore?: (o: { url: string }) => Promise<Store> };
    try {
      mod = await import(modulePath);
    } catch (err) {
      throw new Error(`the PostgreSQL store is not available in this build: ${(err as Error).message}`);
    }
    if (!mod.openPostgresStore)
      throw new Error("the PostgreSQL store module has no openPostgresStore export");
    return mod.openPostgresStore({ url });
  }
  throw new Error(`unsupported --db URL "${url}": use sqlite:PATH, sqlite::memory: or postgres://…`);
}
