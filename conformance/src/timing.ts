/**
 * Time without guesses. Every wait in the suite is "poll until a deadline", where the deadline comes
 * from the kernel's advertised lease (or the configured one) times `--time-scale`. Nothing sleeps for a
 * fixed time hoping the kernel is done; `pause` only spaces out polls while a deadline runs.
 */
export interface Timing {
  /** The kernel's lease in ms, when known (from /info, flags, env or fixture). */
  leaseMs?: number;
  maxAttempts?: number;
  /** Long-poll ceiling from /info (`maxWaitSeconds`), when known. */
  maxWaitSeconds?: number;
  timeScale: number;
}

/** Slack granted on top of an advertised duration before a late answer counts as a failure. */
export function tolerance(t: Timing): number {
  return Math.round((750 + 0.25 * (t.leaseMs ?? 0)) * t.timeScale);
}

/** How long to keep polling for something that should appear "now" (an event after a post). */
export function arrival(t: Timing): number {
  return Math.round(5_000 * t.timeScale);
}

/** Spacing of polls while waiting for a deadline: fine-grained for short leases, never busy. */
export function pollInterval(t: Timing): number {
  return Math.max(20, Math.min(200, Math.round((t.leaseMs ?? 2_000) / 20)));
}

export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** Milliseconds since an arbitrary origin; monotonic. */
export const now = () => performance.now();

/** Wait until a monotonic instant (returns at once when it is past). */
export const until = (instant: number) => pause(instant - now());
