/**
 * In-process wake-ups for long-polls, keyed by agent identity. The store signals "this agent may have
 * ready events" (after a commit here, or via LISTEN/NOTIFY from another replica); every waiting poll of
 * that agent re-checks. Wake-ups are hints: a poll always re-claims from the store. close() releases
 * every waiter (graceful shutdown). Must never hold a poll past its deadline.
 */
import type { Store } from "../store/contract.js";

export type WakeReason = "woken" | "timer" | "closed" | "aborted";

export interface Waiter {
  /** True when a wake-up arrived since the last reset (so none is lost between claim and wait). */
  readonly signalled: boolean;
  reset(): void;
  /** Resolves at `delayMs`, or earlier on a wake-up, abort or close. */
  wait(delayMs: number, signal?: AbortSignal): Promise<WakeReason>;
  dispose(): void;
}

interface Entry {
  signalled: boolean;
  resolve: ((r: WakeReason) => void) | null;
}

export class WakeHub {
  private readonly byAgent = new Map<string, Set<Entry>>();
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(store: Store) {
    this.unsubscribe = store.onEventsReady((agentId) => this.wake(agentId));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  wake(agentId: string): void {
    for (const e of this.byAgent.get(agentId) ?? []) {
      e.signalled = true;
      e.resolve?.("woken");
    }
  }

  waiterCount(): number {
    let n = 0;
    for (const set of this.byAgent.values()) n += set.size;
    return n;
  }

  subscribe(agentId: string): Waiter {
    const entry: Entry = { signalled: false, resolve: null };
    let set = this.byAgent.get(agentId);
    if (!set) {
      set = new Set();
      this.byAgent.set(agentId, set);
    }
    set.add(entry);
    const hub = this;
    return {
      get signalled() {
        return entry.signalled;
      },
      reset() {
        entry.signalled = false;
      },
      wait(delayMs, signal) {
        if (hub.closed) return Promise.resolve("closed");
        if (signal?.aborted) return Promise.resolve("aborted");
        if (entry.signalled) return Promise.resolve("woken");
        return new Promise<WakeReason>((resolve) => {
          const done = (r: WakeReason) => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            entry.resolve = null;
            resolve(r);
          };
          const onAbort = () => done("aborted");
          const timer = setTimeout(() => done("timer"), Math.max(0, delayMs));
          signal?.addEventListener("abort", onAbort, { once: true });
          entry.resolve = done;
        });
      },
      dispose() {
        entry.resolve = null;
        set.delete(entry);
        if (set.size === 0 && hub.byAgent.get(agentId) === set) hub.byAgent.delete(agentId);
      },
    };
  }

  /** Release every waiting poll and refuse new waits. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    for (const set of this.byAgent.values()) for (const e of set) e.resolve?.("closed");
  }
}
