/**
 * `lastUsedAt` of runtime tokens, written in batches. Authentication records a refresh here (at most one
 * per token a minute, tokens.ts decides) and goes on; the refreshes of every token are written together,
 * one transaction at most `flushMs` later. Written one by one, each refresh was a commit of its own on the
 * request's path, and with thousands of drivers parked in long-polls those commits were a large share of
 * an idle kernel's CPU (docs/benchmarks.md, "Why the hot path looks like this").
 *
 * `lastUsedAt` is informational (the token listing shows it), so a refresh may reach the store a second
 * late, and one not yet written when the process dies is lost. A flush the store refuses (an outage) is
 * kept and tried again with the next one.
 *
 * Must never: make a request wait for, or fail on, this write; or write an older time over a newer one
 * it holds.
 */
import type { Store } from "../store/contract.js";

export interface TokenTouches {
  /** Records that token `id` was used at `at` (epoch ms); written with the next flush. */
  touch(id: string, at: number): void;
  /** Writes what is recorded now (tests, shutdown); resolves once written or kept for the next try. */
  flush(): Promise<void>;
  /** Flushes and stops: touches after this are written at once, one by one. */
  close(): Promise<void>;
}

export function createTokenTouches(store: Store, flushMs = 1000): TokenTouches {
  let pending = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  const write = async (batch: Map<string, number>) => {
    try {
      await store.transaction(async (tx) => {
        for (const [id, at] of batch) await tx.touchRuntimeToken(id, at);
      });
    } catch {
      // Kept for the next flush, unless the token was used again since (that time is newer).
      for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
      schedule();
    }
  };

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    // One write at a time, in order: a later batch never lands before an earlier one.
    writing = writing.then(() => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      return write(batch);
    });
    return writing;
  };

  function schedule() {
    if (timer || closed) return;
    timer = setTimeout(() => void flush(), flushMs);
    timer.unref();
  }

  return {
    touch(id, at) {
      pending.set(id, at);
      if (closed) void flush();
      else schedule();
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}
