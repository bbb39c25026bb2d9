export const DEFAULT_CONFIG = {
    leaseSeconds: 30,
    maxAttempts: 5,
    maxLimit: 50,
    maxWaitSeconds: 25,
    maxMessageBytes: 65536,
    bodyLimitBytes: 1024 * 1024,
    idempotencyTtlMs: 24 * 60 * 60 * 1000,
    longPollBackstopMs: 2000,
    longPollSlackMs: 1000,
};
export function resolveConfig(partial = {}) {
    const c = { ...DEFAULT_CONFIG, ...partial };
    if (!(c.leaseSeconds > 0))
        throw new Error("leaseSeconds must be > 0");
    if (!Number.isInteger(c.maxAttempts) || c.maxAttempts < 1)
        throw new Error("maxAttempts must be an integer ≥ 1");
    if (!(c.longPollSlackMs >= 0 && c.longPollSlackMs <= 1000))
        throw new Error("longPollSlackMs must be 0–1000");
    return c;
}
//# sourceMappingURL=config.js.map