/**
 * In-process wake-ups for cancellation watches (feature `cancel`), keyed by event id. A waiting watch is
 * woken only by:
 *   - a `cancel` of its event on the store's change feed (after a commit here, through NOTIFY from another
 *     PostgreSQL replica, or found by the sweep below);
 *   - the sweep: when the store says cancels may have gone unannounced — a `gap` (PostgreSQL's LISTEN
 *     connection came back) at once, and while anyone watches, every `backstopMs` if `cancelComplete()` is
 *     false (another process committed to the SQLite file; the LISTEN connection is down) — ONE store
 *     query asks which watched events are cancelled, and wakes those;
 *   - the end of its own wait, or close()/abort.
 * Wake-ups are hints: a woken watch reads its delivery again. No watch queries the store on a timer.
 *
 * Must never: hold a watch past its deadline, run two sweeps at once, or let a store failure in a sweep
 * escape (the next tick tries again).
 */
import type { Store } from "../store/contract.js";
import { systemTimers, type Timers } from "./ready-scheduler.js";
import type { Cancellation, WakeReason } from "./wake-hub.js";

export interface CancelWatcher {
  /** True when a wake-up arrived since the last reset (so none is lost between the read and the wait). */
  readonly signalled: boolean;
  reset(): void;
  /** Resolves at `delayMs`, or earlier on a wake-up, abort or close. */
  wait(delayMs: number, signal?: Cancellation): Promise<WakeReason>;
  dispose(): void;
}

export interface CancelWatchHubOptions {
  /** Period of the shared sweep while watches wait and cancels may have gone unannounced. */
  backstopMs: number;
  timers?: Timers;
}

interface Entry {
  signalled: boolean;
  resolve: ((r: WakeReason) => void) | null;
}

/** Event ids per sweep query (keeps parameter lists small on both stores). */
const SWEEP_CHUNK = 500;

export class CancelWatchHub {
  private readonly byEvent = new Map<string, Set<Entry>>();
  private closed = false;
  private readonly unsubscribe: () => void;
  private readonly timers: Timers;
  private backstop: unknown = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;

  constructor(
    private readonly store: Store,
    private readonly options: CancelWatchHubOptions,
  ) {
    this.timers = options.timers ?? systemTimers;
    this.unsubscribe = store.changes.subscribe((change) => {
      if (change.kind === "cancel") this.wake(change.eventId);
      else if (change.kind === "gap") void this.sweep();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  wake(eventId: string): void {
    for (const e of this.byEvent.get(eventId) ?? []) {
      e.signalled = true;
      e.resolve?.("woken");
    }
  }

  /** Watches subscribed now (the open-watches gauge). */
  watchCount(): number {
    let n = 0;
    for (const set of this.byEvent.values()) n += set.size;
    return n;
  }

  subscribe(eventId: string): CancelWatcher {
    const entry: Entry = { signalled: false, resolve: null };
    let set = this.byEvent.get(eventId);
    if (!set) {
      set = new Set();
      this.byEvent.set(eventId, set);
    }
    set.add(entry);
    this.startBackstop();
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
          // A timer may fire a little early against performance.now(): re-arm for what is left.
          const end = performance.now() + Math.max(0, delayMs);
          const fire = () => {
            const left = end - performance.now();
            if (left > 0) timer = setTimeout(fire, left);
            else done("timer");
          };
          let timer = setTimeout(fire, Math.max(0, delayMs));
          signal?.addEventListener("abort", onAbort, { once: true });
          entry.resolve = done;
        });
      },
      dispose() {
        entry.resolve = null;
        set.delete(entry);
        if (set.size === 0 && hub.byEvent.get(eventId) === set) hub.byEvent.delete(eventId);
        if (hub.byEvent.size === 0) hub.stopBackstop();
      },
    };
  }

  /** One pass of the sweep; a call while a pass runs queues exactly one more pass after it. */
  sweep(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.sweeping) {
      this.sweepAgain = true;
      return this.sweeping;
    }
    this.sweeping = this.sweepOnce().finally(() => {
      this.sweeping = null;
      if (this.sweepAgain) {
        this.sweepAgain = false;
        void this.sweep();
      }
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const ids = [...this.byEvent.keys()];
    for (let i = 0; i < ids.length && !this.closed; i += SWEEP_CHUNK) {
      let found: string[];
      try {
        found = await this.store.cancelledAmong(ids.slice(i, i + SWEEP_CHUNK));
      } catch {
        return; // the store is unreachable: the watches end at their deadline; the next tick retries
      }
      for (const id of found) this.wake(id);
    }
  }

  private startBackstop(): void {
    if (this.backstop !== null || this.closed) return;
    const tick = () => {
      this.backstop = this.timers.set(tick, this.options.backstopMs);
      // Where every cancel was announced (one SQLite process, a listening replica) a sweep finds nothing.
      if (!this.store.changes.cancelComplete()) void this.sweep();
    };
    this.backstop = this.timers.set(tick, this.options.backstopMs);
  }

  private stopBackstop(): void {
    if (this.backstop !== null) this.timers.clear(this.backstop);
    this.backstop = null;
  }

  /** Release every waiting watch and refuse new waits. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.stopBackstop();
    for (const set of this.byEvent.values()) for (const e of set) e.resolve?.("closed");
  }
}
