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
import { AUTH_CACHE_MAX_AGE_MS } from "../store/contract.js";
const MAX_ENTRIES = 10_000;
export function createTokenCache(store) {
    const entries = new Map();
    // Bumped by every invalidation; a look-up that started under an older generation is not kept.
    let generation = 0;
    const maxAgeMs = store.authCacheMaxAgeMs ?? AUTH_CACHE_MAX_AGE_MS;
    const enabled = typeof store.onAuthChanged === "function" && typeof store.authCacheSafe === "function";
    const unsubscribe = enabled
        ? store.onAuthChanged?.(() => {
            generation++;
            entries.clear();
        })
        : undefined;
    const cache = {
        peek(hash) {
            if (!enabled || !store.authCacheSafe?.())
                return undefined;
            const hit = entries.get(hash);
            return hit && performance.now() - hit.at < maxAgeMs ? hit.auth : undefined;
        },
        async lookup(hash) {
            if (!enabled || !store.authCacheSafe?.())
                return store.findRuntimeTokenByHash(hash);
            const now = performance.now();
            const hit = entries.get(hash);
            if (hit && now - hit.at < maxAgeMs)
                return hit.auth;
            const started = generation;
            const auth = await store.findRuntimeTokenByHash(hash);
            if (auth && started === generation && store.authCacheSafe?.()) {
                if (entries.size >= MAX_ENTRIES)
                    entries.delete(entries.keys().next().value);
                entries.set(hash, { auth, at: now });
            }
            else if (!auth)
                entries.delete(hash);
            return auth;
        },
        get size() {
            return entries.size;
        },
        close() {
            unsubscribe?.();
            entries.clear();
        },
    };
    return cache;
}
//# sourceMappingURL=token-cache.js.map