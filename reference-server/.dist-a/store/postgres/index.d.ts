import type { Store } from "../contract.js";
import { NotificationListener } from "./listen.js";
export interface PostgresStoreOptions {
    /** `postgres://user@host:port/db` */
    url: string;
    /**
     * Schema holding the tables (created if missing): this option, else `?schema=` on the URL, else `public`.
     * Letters, digits, `_`; ≤ 40 characters.
     */
    schema?: string;
    /** Pool size (connections for queries; the LISTEN connection is extra). Default 10. */
    poolSize?: number;
    /** Called with errors of idle pool clients and of the LISTEN connection (which reconnects). */
    onError?: (err: Error) => void;
    /** Milliseconds `ping()` waits before failing. Default 5000. */
    pingTimeoutMs?: number;
    /** Milliseconds a query waits for a pool connection (or a new one to open) before failing. Default 10000. */
    connectTimeoutMs?: number;
}
export interface PostgresStore extends Store {
    readonly kind: "postgres";
    readonly schema: string;
    /** The LISTEN connection (its `backendPid` is null while it reconnects); for health reporting and tests. */
    readonly listener: NotificationListener;
}
export declare function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore>;
