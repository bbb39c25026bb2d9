/**
 * Kernel settings with their defaults. `leaseSeconds` may be fractional for tests (a 300 ms lease);
 * /info reports it rounded up to a whole second, the smallest value the CAP schema allows.
 */
export interface KernelConfig {
    leaseSeconds: number;
    maxAttempts: number;
    /** Upper bound of `limit` on GET /events (CAP: 50). */
    maxLimit: number;
    maxWaitSeconds: number;
    maxMessageBytes: number;
    bodyLimitBytes: number;
    idempotencyTtlMs: number;
    /**
     * Period of the shared long-poll backstop: while polls wait, one store query per period finds the waiting
     * agents that have ready events (a lost NOTIFY) or a lease another replica started. Not per poll.
     */
    longPollBackstopMs: number;
    /**
     * Timer slack of an empty long-poll's end: its wait ends at the next multiple of its slack (of the process
     * clock) after `waitSeconds`, so the polls ending close together share one wake-up of the process and
     * their drivers' re-polls arrive together. The slack is this many ms, halved until it is at most 4 % of
     * the wait: a 25 s wait ends at most 1 s late, a 1 s wait at most 31.25 ms. 0 ends each wait on its own
     * instant.
     */
    longPollSlackMs: number;
}
export declare const DEFAULT_CONFIG: KernelConfig;
export declare function resolveConfig(partial?: Partial<KernelConfig>): KernelConfig;
