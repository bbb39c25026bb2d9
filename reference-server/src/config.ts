/**
 * Kernel settings with their defaults. `leaseSeconds` may be fractional for tests (a 300 ms lease);
 * /info reports it rounded up to a whole second, the smallest value the CAP schema allows.
 */
export interface KernelConfig {
  leaseSeconds: number;
  maxAttempts: number;
  /** Largest `limit` a poll may ask for, 1–50 (CAP: 50): above it GET /events answers 400. */
  maxLimit: number;
  /**
   * Longest a poll waits, 0–25 seconds (CAP: 25): a larger `waitSeconds` is accepted and shortened. 0 turns
   * long-polls off, and /info then leaves `long-poll` out of its features; CAP-INFO-2 allows only 25 and 0,
   * so any other value is for tests.
   */
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
  /** Per-client bounds (docs/security.md gives each default's reason); /info reports the CAP ones. */
  limits: KernelLimits;
}

export interface KernelLimits {
  /** Deepest nesting of objects and arrays in a JSON body, checked while parsing. */
  maxJsonDepth: number;
  /** Largest stored memory envelope, UTF-8 bytes of its JSON. */
  maxMemoryBytes: number;
  /** Largest content of one memory section or array item, UTF-8 bytes. */
  maxMemorySectionBytes: number;
  /** Largest registry manifest, UTF-8 bytes of its JSON. */
  maxManifestBytes: number;
  /** Messages one runtime token may post per minute. */
  messagesPerMinute: number;
  /** UTF-8 bytes of message content and metadata (as JSON) one runtime token may post per minute. */
  messageBytesPerMinute: number;
  /** Long-polls one runtime token may have waiting at once. */
  maxLongPollsPerToken: number;
  /** Cancellation watches one runtime token may have waiting at once (a budget apart from the polls'). */
  maxCancelWatchesPerToken: number;
  /** Open connections one client address may hold. */
  maxConnectionsPerClient: number;
  /** Failed authentications (any bad or unknown token) one client address may make per minute. */
  authFailuresPerMinute: number;
  /** Join-code redemptions one client address may attempt per minute. */
  joinRedemptionsPerMinute: number;
  /** Runtime tokens and join codes one human may issue per minute. */
  issuancesPerMinute: number;
  /** Time a new connection has to send its whole request head, ms. */
  headersTimeoutMs: number;
  /** Idle time allowed between requests on a keep-alive connection, ms. */
  keepAliveTimeoutMs: number;
  /** Period of the idempotency-record prune, ms. */
  idempotencyPruneIntervalMs: number;
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
  limits: {
    maxJsonDepth: 64,
    maxMemoryBytes: 1024 * 1024,
    maxMemorySectionBytes: 256 * 1024,
    maxManifestBytes: 64 * 1024,
    messagesPerMinute: 120,
    messageBytesPerMinute: 4 * 1024 * 1024,
    maxLongPollsPerToken: 8,
    maxCancelWatchesPerToken: 64,
    maxConnectionsPerClient: 256,
    authFailuresPerMinute: 1200,
    joinRedemptionsPerMinute: 20,
    issuancesPerMinute: 30,
    headersTimeoutMs: 10_000,
    keepAliveTimeoutMs: 30_000,
    idempotencyPruneIntervalMs: 10 * 60 * 1000,
  },
};

export type KernelConfigInput = Partial<Omit<KernelConfig, "limits">> & { limits?: Partial<KernelLimits> };

export function resolveConfig(partial: KernelConfigInput = {}): KernelConfig {
  const c = { ...DEFAULT_CONFIG, ...partial, limits: { ...DEFAULT_CONFIG.limits, ...partial.limits } };
  for (const [name, value] of Object.entries(c.limits))
    if (!(Number.isFinite(value) && value > 0)) throw new Error(`limits.${name} must be a number > 0`);
  if (!(c.leaseSeconds > 0)) throw new Error("leaseSeconds must be > 0");
  if (!Number.isInteger(c.maxAttempts) || c.maxAttempts < 1)
    throw new Error("maxAttempts must be an integer ≥ 1");
  // The ranges /info's schema allows for them: a kernel never reports a value it cannot apply.
  if (!Number.isInteger(c.maxLimit) || c.maxLimit < 1 || c.maxLimit > 50)
    throw new Error("maxLimit must be an integer from 1 to 50");
  if (!Number.isInteger(c.maxWaitSeconds) || c.maxWaitSeconds < 0 || c.maxWaitSeconds > 25)
    throw new Error("maxWaitSeconds must be an integer from 0 to 25");
  if (!(c.longPollSlackMs >= 0 && c.longPollSlackMs <= 1000))
    throw new Error("longPollSlackMs must be 0–1000");
  return c;
}
