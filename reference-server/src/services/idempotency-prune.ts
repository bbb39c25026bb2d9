/**
 * Deletes Idempotency-Key records older than `idempotencyTtlMs` every `limits.idempotencyPruneIntervalMs`:
 * past the TTL a record no longer answers a retry (messages.ts ignores it), so keeping it only grows the
 * store. On PostgreSQL every replica prunes on its own schedule; two prunes at once delete the same old
 * rows, which is harmless.
 *
 * Must never keep the process alive (the timer is unref'd), run two prunes at once, or let a store failure
 * escape (the next tick tries again); stop() waits for a prune under way so the store can close after it.
 */
import type { ServiceDeps } from "./deps.js";

export interface IdempotencyPrune {
  /** Prunes now; resolves with the number of records deleted (0 when a prune is already running). */
  runOnce(): Promise<number>;
  /** Stops the schedule and waits for a prune under way. */
  stop(): Promise<void>;
}

export function startIdempotencyPrune({ store, config, clock }: ServiceDeps): IdempotencyPrune {
  let running: Promise<number> | null = null;
  let stopped = false;

  const runOnce = (): Promise<number> => {
    if (running || stopped) return Promise.resolve(0);
    running = Promise.resolve()
      .then(() => store.pruneIdempotencyRecords(clock.now() - config.idempotencyTtlMs))
      .catch(() => 0)
      .finally(() => {
        running = null;
      });
    return running;
  };

  const timer = setInterval(() => void runOnce(), config.limits.idempotencyPruneIntervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
