/**
 * In-process wake-ups for long-polls, keyed by agent identity. A waiting poll is woken only by:
 *   - "this agent may have ready events" from the store (after a commit here, or via LISTEN/NOTIFY from
 *     another replica);
 *   - the agent's next ready instant (a lease ending, a delayed release), scheduled once per process in
 *     one ReadyScheduler, however many polls wait;
 *   - the shared backstop: while anyone waits, every `backstopMs` ONE store query asks which of the
 *     waiting agents have ready events (woken) or a future ready instant (scheduled) — this covers a lost
 *     NOTIFY and a lease another replica started; it also runs at once when the store reports that
 *     wake-ups may have been missed (PostgreSQL: the LISTEN connection came back);
 *   - the end of its own wait (aligned up to the next tick of its slack — at most `slackMs`, and at most
 *     4 % of the wait — so the polls that end close together share one wake-up of the process: one wake-up
 *     per poll end cost more than the poll itself), or close()/abort.
 * Wake-ups are hints: a woken poll re-claims from the store. No waiting poll queries the store on a timer.
 *
 * Must never: hold a poll past its deadline plus its slack (≤ `slackMs`, ≤ 4 % of its wait), run two
 * backstop sweeps at once, or let a store failure in the backstop escape (the next tick tries again).
 */
import type { Clock } from "../clock.js";
import type { Store } from "../store/contract.js";
import { ReadyScheduler, systemTimers, type Timers } from "./ready-scheduler.js";

export type WakeReason = "woken" | "timer" | "closed" | "aborted";

/**
 * What a wait needs of its cancellation. An AbortSignal is one; the events route passes a lighter object
 * (an AbortController per parked poll was a visible share of an idle kernel's work).
 */
export interface Cancellation {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface Waiter {
  /** True when a wake-up arrived since the last reset (so none is lost between claim and wait). */
  readonly signalled: boolean;
  reset(): void;
  /** Resolves at `delayMs`, or earlier on a wake-up, abort or close. */
  wait(delayMs: number, signal?: Cancellation): Promise<WakeReason>;
  dispose(): void;
}

export interface WakeHubOptions {
  clock: Clock;
  maxAttempts: number;
  /** Period of the shared backstop sweep while polls wait. */
  backstopMs: number;
  /**
   * A wait's end is rounded up to the next multiple of its slack (this many ms, halved until within 4 % of
   * the wait) of performance.now(); 0: not rounded.
   */
  slackMs?: number;
  timers?: Timers;
}

interface Entry {
  signalled: boolean;
  resolve: ((r: WakeReason) => void) | null;
}

/**
 * How late, as a share of its wait, an empty wait may end: the ends that share a tick share one wake-up
 * of the process, and so do the drivers' re-polls after them (docs/benchmarks.md, "Why the hot path
 * looks like this").
 */
const SLACK_SHARE = 0.04;

/** Agents per backstop query (keeps parameter lists small on both stores). */
const SWEEP_CHUNK = 500;

export class WakeHub {
  private readonly byAgent = new Map<string, Set<Entry>>();
  private closed = false;
  private readonly unsubscribe: Array<() => void>;
  private readonly scheduler: ReadyScheduler;
  private readonly timers: Timers;
  private backstop: unknown = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;

  constructor(
    private readonly store: Store,
    private readonly options: WakeHubOptions,
  ) {
    this.timers = options.timers ?? systemTimers;
    this.scheduler = new ReadyScheduler(options.clock, (id) => this.wake(id), this.timers);
    this.unsubscribe = [
      store.changes.subscribe((change) => {
        if (change.kind === "ready") this.wake(change.agentId);
        else if (change.kind === "gap") void this.sweep();
      }),
    ];
  }

  /**
   * `delayMs` from now, ending on the next tick of its slack: every wait ending in one tick fires in one
   * pass. The slack is the largest `slackMs / 2^k` within SLACK_SHARE of the whole wait (`waitMs`: the
   * poll's waitSeconds, of which `delayMs` is what is left), so a 25 s wait ends at most 1 s late (the
   * default slackMs) and a 1 s wait at most 31.25 ms; the ticks of shorter waits are ticks of the longer
   * ones' too.
   */
  slackedDelay(delayMs: number, now = performance.now(), waitMs = delayMs): number {
    const delay = Math.max(0, delayMs);
    let slack = this.options.slackMs ?? 0;
    while (slack > 0 && slack > waitMs * SLACK_SHARE) slack = slack >= 1 ? slack / 2 : 0;
    if (slack <= 0) return delay;
    return Math.ceil((now + delay) / slack) * slack - now;
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

  /** How many polls of this agent are subscribed (waiting, or claiming before they wait). */
  waitersOf(agentId: string): number {
    return this.byAgent.get(agentId)?.size ?? 0;
  }

  /** Wake the agent's polls at `at` (epoch ms): its next lease expiry or delayed-release instant. */
  wakeAt(agentId: string, at: number): void {
    if (!this.closed) this.scheduler.at(agentId, at);
  }

  waiterCount(): number {
    let n = 0;
    for (const set of this.byAgent.values()) n += set.size;
    return n;
  }

  /** Agents with an instant in the scheduler (metrics, tests). */
  scheduledCount(): number {
    return this.scheduler.size;
  }

  /** `waitMs`: the whole wait of the poll (its waitSeconds), which sets its slack; default each delay. */
  subscribe(agentId: string, waitMs?: number): Waiter {
    const entry: Entry = { signalled: false, resolve: null };
    let set = this.byAgent.get(agentId);
    if (!set) {
      set = new Set();
      this.byAgent.set(agentId, set);
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
          // Node runs a timer against its loop's cached millisecond clock, which may lag the real one, so
          // a timer can fire up to a millisecond or more before its end: re-arm for what is left.
          const start = performance.now();
          const end = start + hub.slackedDelay(delayMs, start, waitMs ?? delayMs);
          const fire = () => {
            const left = end - performance.now();
            if (left > 0) timer = setTimeout(fire, left);
            else done("timer");
          };
          let timer = setTimeout(fire, end - performance.now());
          signal?.addEventListener("abort", onAbort, { once: true });
          entry.resolve = done;
        });
      },
      dispose() {
        entry.resolve = null;
        set.delete(entry);
        if (set.size === 0 && hub.byAgent.get(agentId) === set) hub.byAgent.delete(agentId);
        if (hub.byAgent.size === 0) hub.stopBackstop();
      },
    };
  }

  /**
   * One pass of the shared backstop: which waiting agents have an event ready now (woken) or at a later
   * instant (scheduled). A call while a pass runs queues exactly one more pass after it.
   */
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
    // Where every ready event was announced (SQLite, one process), a sweep over every waiting agent
    // would only be most of an idle kernel's queries.
    if (this.store.changes.readyComplete()) return;
    const ids = [...this.byAgent.keys()];
    for (let i = 0; i < ids.length && !this.closed; i += SWEEP_CHUNK) {
      const now = this.options.clock.now();
      let found: { agentId: string; at: number }[];
      try {
        found = await this.store.readyInstants({
          agentIds: ids.slice(i, i + SWEEP_CHUNK),
          now,
          maxAttempts: this.options.maxAttempts,
        });
      } catch {
        return; // the store is unreachable: the waiting polls end at their deadline; the next tick retries
      }
      for (const { agentId, at } of found) {
        if (at <= now) this.wake(agentId);
        else this.wakeAt(agentId, at);
      }
    }
  }

  private startBackstop(): void {
    if (this.backstop !== null || this.closed) return;
    const tick = () => {
      this.backstop = this.timers.set(tick, this.options.backstopMs);
      void this.sweep();
    };
    this.backstop = this.timers.set(tick, this.options.backstopMs);
  }

  private stopBackstop(): void {
    if (this.backstop !== null) this.timers.clear(this.backstop);
    this.backstop = null;
  }

  /** Release every waiting poll and refuse new waits. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const u of this.unsubscribe) u();
    this.stopBackstop();
    this.scheduler.clear();
    for (const set of this.byAgent.values()) for (const e of set) e.resolve?.("closed");
  }
}
