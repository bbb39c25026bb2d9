/**
 * How many long-polls one runtime token may have waiting at once (`limits.maxLongPollsPerToken`). A
 * driver needs one waiting poll per agent; a token holding more is refused `429 too_many_long_polls` with
 * `Retry-After` set to when its earliest waiting poll ends at the latest, so a retry then finds a slot.
 * Counted in this process: each replica bounds the polls it holds.
 *
 * Must never leak a slot: every take() is paired with the release it returns, called when the poll ends
 * however it ends (answered, timed out, hung up, closed).
 */
import { KernelError } from "../errors/registry.js";

export interface LongPollSlots {
  /** Takes a slot for a poll of `tokenId` that waits at most `waitMs`; throws 429 when none is free. */
  take(tokenId: string, waitMs: number): () => void;
}

/**
 * `limit`: the name of the limit the slots apply, given back in the 429's details — the long-polls' own
 * (`maxLongPollsPerToken`), or a separate budget's of the same kind (`maxCancelWatchesPerToken`).
 */
export function createLongPollSlots(maxPerToken: number, limit = "maxLongPollsPerToken"): LongPollSlots {
  // Per token, the deadlines (performance.now() ms) of its waiting polls: at most maxPerToken entries.
  const byToken = new Map<string, number[]>();

  return {
    take(tokenId, waitMs) {
      const now = performance.now();
      let deadlines = byToken.get(tokenId);
      if (deadlines && deadlines.length >= maxPerToken) {
        const soonest = Math.min(...deadlines);
        const retryAfter = Math.max(1, Math.ceil((soonest - now) / 1000));
        throw new KernelError(
          "too_many_long_polls",
          undefined,
          { [limit]: maxPerToken },
          { "Retry-After": String(retryAfter) },
        );
      }
      if (!deadlines) {
        deadlines = [];
        byToken.set(tokenId, deadlines);
      }
      const deadline = now + waitMs;
      deadlines.push(deadline);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const list = byToken.get(tokenId);
        if (!list) return;
        list.splice(list.indexOf(deadline), 1);
        if (list.length === 0) byToken.delete(tokenId);
      };
    },
  };
}
