/**
 * Opens a store from a `--db` URL: `sqlite:PATH`, `sqlite::memory:`, or `postgres://…` / `postgresql://…`
 * (the PostgreSQL store, and with it the `pg` driver, is loaded only when asked for).
 */
import { isMissingPackage } from "../optional-peer.js";
import type { Store } from "./contract.js";
import { openSqliteStore } from "./sqlite/index.js";

export interface OpenStoreOptions {
  /** False: the plain store, without its accelerators (../store/README.md, "Plain and accelerated"). */
  accelerate?: boolean;
}

export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const accelerate = options.accelerate ?? true;
  if (url.startsWith("sqlite:")) {
    // CAP_SQLITE_BUSY_TIMEOUT_MS: how long a request waits for a file another process holds locked before
    // it answers 503 store_unavailable (default 5000).
    const busy = Number(process.env.CAP_SQLITE_BUSY_TIMEOUT_MS);
    return openSqliteStore({
      path: url.slice("sqlite:".length) || ":memory:",
      accelerate,
      ...(Number.isFinite(busy) && busy >= 0 && process.env.CAP_SQLITE_BUSY_TIMEOUT_MS
        ? { busyTimeoutMs: busy }
        : {}),
    });
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const modulePath = "./postgres/index.js";
    let mod: { openPostgresStore?: (o: { url: string; accelerate: boolean }) => Promise<Store> };
    try {
      mod = await import(modulePath);
    } catch (err) {
      // `pg` is an optional peer dependency: SQLite operators never install it.
      if (isMissingPackage(err, "pg")) throw new Error(PG_MISSING);
      throw new Error(`the PostgreSQL store is not available in this build: ${(err as Error).message}`);
    }
    if (!mod.openPostgresStore)
      throw new Error("the PostgreSQL store module has no openPostgresStore export");
    return mod.openPostgresStore({ url, accelerate });
  }
  throw new Error(`unsupported --db URL "${url}": use sqlite:PATH, sqlite::memory: or postgres://…`);
}

/** What `--db postgres://…` says when `pg`, an optional peer dependency of the kernel, is not installed. */
export const PG_MISSING = [
  "a postgres:// store needs the pg package, which is not installed (an optional peer dependency of",
  "@commonly/cap-kernel: SQLite, the default store, does not need it). Install it beside the kernel:",
  "  npm install @commonly/cap-kernel pg",
  "or, without a project: npx -p @commonly/cap-kernel -p pg cap-kernel serve --db postgres://…",
].join("\n");
