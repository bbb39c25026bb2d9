/**
 * A cache of runtime-token look-ups (hash → token, identity, installation, issuer), so an authenticated
 * CAP request costs no store read. Correctness comes from the store, not from time: the store calls
 * onAuthChanged after every revocation, uninstall and user deletion has committed — on this process at
 * once, and on every PostgreSQL replica through LISTEN/NOTIFY — and the whole cache is dropped. A store
 * that cannot promise that (no onAuthChanged, or its LISTEN connection is down) is never cached. The
 * maximum age (the store's authCacheMaxAgeMs, else AUTH_CACHE_MAX_AGE_MS) bounds how long a revoking
 * PostgreSQL replica waits for a replica that does not ack.
 *
 * Must never: keep an entry read before an invalidation (a look-up that races a revocation is not
 * stored), cache a miss (a token issued later must authenticate at once), or hold raw tokens (keys are
 * SHA-256 hashes).
 */
import { type RuntimeTokenAuth, type Store } from "../store/contract.js";
export interface TokenCache {
    /** The cached look-up of `hash`, at once, or undefined when it must go to the store (lookup). */
    peek(hash: string): RuntimeTokenAuth | undefined;
    lookup(hash: string): Promise<RuntimeTokenAuth | null>;
    /** Entries now held (tests, metrics). */
    readonly size: number;
    /** Stops listening to the store (the kernel is closing). */
    close(): void;
}
export declare function createTokenCache(store: Store): TokenCache;
