/**
 * Waiting without guessing: poll a condition until it holds or a deadline passes, then fail with
 * what was being waited for. Never `sleep(guess)` in a test.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  label: string,
  { timeoutMs = 10_000, everyMs = 5 }: { timeoutMs?: number; everyMs?: number } = {},
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
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${label}${why}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
