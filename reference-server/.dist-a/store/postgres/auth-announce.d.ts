import type pg from "pg";
/** The application_name of a store's LISTEN connection: its schema and origin, found by revoking replicas. */
export declare function listenerName(schema: string, origin: string): string;
export declare class AuthAnnouncer {
    private readonly pool;
    private readonly channel;
    private readonly schema;
    private readonly origin;
    /** Drops this replica's caches (the store's onAuthChanged listeners). */
    private readonly dropLocal;
    private readonly waiting;
    constructor(pool: pg.Pool, channel: string, schema: string, origin: string, 
    /** Drops this replica's caches (the store's onAuthChanged listeners). */
    dropLocal: () => void);
    /** A fresh announcement: its nonce and the NOTIFY payload to send inside the revoking transaction. */
    next(): {
        nonce: string;
        payload: string;
    };
    /** Called with each "!" message of another replica (listen.ts onControl). */
    onControl(message: string, from: string): void;
    /** After the commit: resolves once every other listening replica acked `nonce`, or at the maximum age. */
    settled(nonce: string): Promise<void>;
}
