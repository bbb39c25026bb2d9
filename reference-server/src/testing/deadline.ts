/**
 * Waiting without guessing: poll a probe until it returns a truthy value or a deadline passes, then fail
 * saying what was awaited and the probe's last error. A fast machine finishes as soon as the state is
 * there; a test never sleeps a guessed amount.
 */
export interface DeadlineOptions {
  /** Default 20 s: generous on a loaded two-core CI machine; a passing test never waits it out. */
  timeoutMs?: number;
  /** Pause between probes, default 20 ms. */
  everyMs?: number;
}

export async function eventually<T>(
  probe: () => T | Promise<T>,
  what: string,
  { timeoutMs = 20_000, everyMs = 20 }: DeadlineOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? ` (last error: ${last.message})` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
