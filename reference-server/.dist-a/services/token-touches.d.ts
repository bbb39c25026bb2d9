/**
 * `lastUsedAt` of runtime tokens, written in batches. Authentication records a refresh here (at most one
 * per token a minute, tokens.ts decides) and goes on; the refreshes of every token are written together,
 * one transaction at most `flushMs` later. Written one by one, each refresh was a commit of its own on the
 * request's path: 2,000 drivers in 25-second long-polls refresh about 27 tokens a second, and those commits
 * were a fifth of the idle kernel's CPU (paired runs, docs/benchmarks.md).
 *
 * `lastUsedAt` is informational (the token listing shows it), so a refresh may reach the store a second
 * late, and one not yet written when the process dies is lost. A flush the store refuses (an outage) is
 * kept and tried again with the next one.
 *
 * Must never: make a request wait for, or fail on, this write; or write an older time over a newer one
 * it holds.
 */
import type { Store } from "../store/contract.js";
export interface TokenTouches {
    /** Records that token `id` was used at `at` (epoch ms); written with the next flush. */
    touch(id: string, at: number): void;
    /** Writes what is recorded now (tests, shutdown); resolves once written or kept for the next try. */
    flush(): Promise<void>;
    /** Flushes and stops: touches after this are written at once, one by one. */
    close(): Promise<void>;
}
export declare function createTokenTouches(store: Store, flushMs?: number): TokenTouches;
