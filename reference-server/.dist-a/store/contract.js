/**
 * The longest a cached token look-up may be served (services/token-cache.ts). A store whose
 * announcements of auth changes may not reach every replica waits this long before a revocation resolves.
 */
export const AUTH_CACHE_MAX_AGE_MS = 5000;
/**
 * Thrown by a store when a write breaks a uniqueness rule of the contract (an identity's second active
 * installation in a pod, a duplicate id). Services map it to a 409; anything else a store throws is a fault.
 */
export class StoreConflictError extends Error {
    name = "StoreConflictError";
}
/**
 * Thrown by a store when it cannot reach its database (connection refused or lost, server restarting,
 * lock or I/O failure) — a condition that passes, as opposed to a fault. The HTTP layer answers it with
 * 503 store_unavailable and Retry-After. The operation applied wholly or not at all.
 */
export class StoreUnavailableError extends Error {
    name = "StoreUnavailableError";
    constructor(cause) {
        super(`store unavailable: ${cause?.message ?? String(cause)}`, { cause });
    }
}
//# sourceMappingURL=contract.js.map