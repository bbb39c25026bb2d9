export declare const clusterUnavailable: string | null;
export declare class PgCluster {
    readonly version: string;
    readonly name: string;
    readonly port: number;
    private constructor();
    get url(): string;
    static create(): Promise<PgCluster>;
    private ctl;
    /** Stops the server (fast shutdown: sessions are terminated); resolves when it is down. */
    stop(): void;
    /** Starts it again; resolves when it accepts connections. */
    start(): void;
    drop(): void;
}
/** The shared test server (`CAP_TEST_PG_URL`), or undefined: PostgreSQL tests then skip, saying why. */
export declare const pgTestUrl: string | undefined;
export declare const pgSkipReason = "skipped: CAP_TEST_PG_URL is not set (.ci/run starts a throwaway PostgreSQL)";
/** A fresh schema on `base` (default `CAP_TEST_PG_URL`): `url` carries `?schema=`, `drop()` removes it. */
export declare function freshPgSchema(prefix?: string, base?: string | undefined): Promise<{
    url: string;
    schema: string;
    drop(): Promise<void>;
}>;
