/**
 * Waiting without guessing: poll a condition until it holds or a deadline passes, then fail saying
 * what was awaited. Tests never `sleep(guess)`.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  label: string,
  { timeoutMs = 20_000, everyMs = 20 }: { timeoutMs?: number; everyMs?: number } = {},
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
