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

export const DEFAULT_CONFIG: KernelConfig = {
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

export function resolveConfig(partial: Partial<KernelConfig> = {}): KernelConfig {
  const c = { ...DEFAULT_CONFIG, ...partial };
  if (!(c.leaseSeconds > 0)) throw new Error("leaseSeconds must be > 0");
  if (!Number.isInteger(c.maxAttempts) || c.maxAttempts < 1)
    throw new Error("maxAttempts must be an integer ≥ 1");
  if (!(c.longPollSlackMs >= 0 && c.longPollSlackMs <= 1000))
    throw new Error("longPollSlackMs must be 0–1000");
  return c;
}
