/**
 * Opens a store from a `--db` URL: `sqlite:PATH`, `sqlite::memory:`, or `postgres://…` / `postgresql://…`
 * (the PostgreSQL store is loaded only when asked for).
 */
import type { Store } from "./contract.js";
export declare function openStore(url: string): Promise<Store>;
