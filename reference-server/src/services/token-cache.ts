/**
 * A cache of runtime-token look-ups (hash → token, identity, installation, issuer), so an authenticated
 * CAP request costs no store read. Correctness comes from the store, not from time: its change feed
 * announces an `auth` change after every revocation, uninstall and user deletion has committed — on this
 * process at once, and on every PostgreSQL replica through LISTEN/NOTIFY — and the whole cache is dropped;
 * so does a `gap`. While the store cannot promise that (changes.authTrusted(): a PostgreSQL LISTEN
 * connection is down) nothing is cached. The maximum age (changes.authMaxAgeMs) bounds how long a revoking
 * PostgreSQL replica waits for a replica that does not ack. An accelerator: `createTokenCache(store, false)`
 * (`cap-kernel serve --no-accelerate`) reads the store on every request.
 *
 * Must never: keep an entry read before an invalidation (a look-up that races a revocation is not
 * stored), cache a miss (a token issued later must authenticate at once), or hold raw tokens (keys are
 * SHA-256 hashes).
 */
import type { RuntimeTokenAuth, Store } from "../store/contract.js";

const MAX_ENTRIES = 10_000;

export interface TokenCache {
  /** The cached look-up of `hash`, at once, or undefined when it must go to the store (lookup). */
  peek(hash: string): RuntimeTokenAuth | undefined;
  lookup(hash: string): Promise<RuntimeTokenAuth | null>;
  /** Entries now held (tests, metrics). */
  readonly size: number;
  /** Stops listening to the store (the kernel is closing). */
  close(): void;
}

export function createTokenCache(store: Store, enabled = true): TokenCache {
  const entries = new Map<string, { auth: RuntimeTokenAuth; at: number }>();
  // Bumped by every invalidation; a look-up that started under an older generation is not kept.
  let generation = 0;
  const { changes } = store;
  const maxAgeMs = changes.authMaxAgeMs;
  const unsubscribe = enabled
    ? changes.subscribe((change) => {
        if (change.kind === "ready") return;
        generation++;
        entries.clear();
      })
    : undefined;

  const cache: TokenCache = {
    peek(hash) {
      if (!enabled || !changes.authTrusted()) return undefined;
      const hit = entries.get(hash);
      return hit && performance.now() - hit.at < maxAgeMs ? hit.auth : undefined;
    },
    async lookup(hash) {
      if (!enabled || !changes.authTrusted()) return store.findRuntimeTokenByHash(hash);
      const now = performance.now();
      const hit = entries.get(hash);
      if (hit && now - hit.at < maxAgeMs) return hit.auth;
      const started = generation;
      const auth = await store.findRuntimeTokenByHash(hash);
      if (auth && started === generation && changes.authTrusted()) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { auth, at: now });
      } else if (!auth) entries.delete(hash);
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
