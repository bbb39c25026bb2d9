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
 *     4 % of the wait — so the polls that end close together share one wake-up of the process: measured on
 *     the idle bench, one wake-up per poll end cost more than the poll), or close()/abort.
 * Wake-ups are hints: a woken poll re-claims from the store. No waiting poll queries the store on a timer.
 *
 * Must never: hold a poll past its deadline plus its slack (≤ `slackMs`, ≤ 4 % of its wait), run two
 * backstop sweeps at once, or let a store failure in the backstop escape (the next tick tries again).
 */
import type { Clock } from "../clock.js";
import type { Store } from "../store/contract.js";
import { type Timers } from "./ready-scheduler.js";
export type WakeReason = "woken" | "timer" | "closed" | "aborted";
/**
 * What a wait needs of its cancellation. An AbortSignal is one; the events route passes a lighter object
 * (an AbortController per parked poll was about 6 % of the idle kernel's JavaScript samples).
 */
export interface Cancellation {
    readonly aborted: boolean;
    addEventListener(type: "abort", listener: () => void, options?: {
        once?: boolean;
    }): void;
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
export declare class WakeHub {
    private readonly store;
    private readonly options;
    private readonly byAgent;
    private closed;
    private readonly unsubscribe;
    private readonly scheduler;
    private readonly timers;
    private backstop;
    private sweeping;
    private sweepAgain;
    constructor(store: Store, options: WakeHubOptions);
    /**
     * `delayMs` from now, ending on the next tick of its slack: every wait ending in one tick fires in one
     * pass. The slack is the largest `slackMs / 2^k` within SLACK_SHARE of the whole wait (`waitMs`: the
     * poll's waitSeconds, of which `delayMs` is what is left), so a 25 s wait ends at most 1 s late (the
     * default slackMs) and a 1 s wait at most 31.25 ms; the ticks of shorter waits are ticks of the longer
     * ones' too.
     */
    slackedDelay(delayMs: number, now?: number, waitMs?: number): number;
    get isClosed(): boolean;
    wake(agentId: string): void;
    /** How many polls of this agent are subscribed (waiting, or claiming before they wait). */
    waitersOf(agentId: string): number;
    /** Wake the agent's polls at `at` (epoch ms): its next lease expiry or delayed-release instant. */
    wakeAt(agentId: string, at: number): void;
    waiterCount(): number;
    /** Agents with an instant in the scheduler (metrics, tests). */
    scheduledCount(): number;
    /** `waitMs`: the whole wait of the poll (its waitSeconds), which sets its slack; default each delay. */
    subscribe(agentId: string, waitMs?: number): Waiter;
    /**
     * One pass of the shared backstop: which waiting agents have an event ready now (woken) or at a later
     * instant (scheduled). A call while a pass runs queues exactly one more pass after it.
     */
    sweep(): Promise<void>;
    private sweepOnce;
    private startBackstop;
    private stopBackstop;
    /** Release every waiting poll and refuse new waits. */
    close(): void;
}
