/**
 * Settings for every CLI command: a flag wins over its CAP_* environment variable, which wins over the
 * default. Numbers are validated here so a typo fails at start, not at the first request.
 */
export interface CommonFlags {
    db?: string;
    leaseSeconds?: string;
    maxAttempts?: string;
}
export interface ServeFlags extends CommonFlags {
    port?: string;
    host?: string;
    logLevel?: string;
    profile?: string;
}
export declare const DEFAULT_DB = "sqlite:.cap-kernel/kernel.db";
export declare function resolveCommon(flags: CommonFlags): {
    db: string;
    leaseSeconds: number;
    maxAttempts: number;
};
export declare function resolveServe(flags: ServeFlags): {
    port: number;
    host: string;
    logLevel: string;
    profile: "cap" | "production";
    db: string;
    leaseSeconds: number;
    maxAttempts: number;
};
/** A URL a client on this machine can use to reach a server bound to `host`. */
export declare function baseUrlFor(host: string, port: number): string;
