/**
 * One timer per kernel process for "agent X has an event that becomes ready at instant T" (a lease that
 * ends, a delayed release): a min-heap of instants, the process timer armed for the earliest only. When an
 * instant passes, `fire(agentId)` is called once for it; the caller (the wake hub) turns that into a
 * wake-up of that agent's waiting polls, which re-claim from the store.
 *
 * Only the earliest instant per agent is kept: the polls it wakes re-read the agent's next instant and
 * schedule that. Instants are epoch ms on the injected clock; the timer functions are injectable too, so
 * unit tests drive both without waiting.
 *
 * Must never: hold more than one armed timer, call `fire` before its instant, or keep the process alive.
 */
import type { Clock } from "../clock.js";
export interface Timers {
    set(fn: () => void, ms: number): unknown;
    clear(handle: unknown): void;
}
export declare const systemTimers: Timers;
export declare class ReadyScheduler {
    private readonly clock;
    private readonly fire;
    private readonly timers;
    private readonly heap;
    /** agentId → its earliest scheduled instant (heap entries with another value are stale). */
    private readonly earliest;
    private timer;
    private armedFor;
    constructor(clock: Clock, fire: (agentId: string) => void, timers?: Timers);
    /** How many agents have an instant scheduled (metrics, tests). */
    get size(): number;
    /** Wake `agentId` at `at` (epoch ms) unless an earlier instant is already scheduled for it. */
    at(agentId: string, at: number): void;
    /** Forget every instant and disarm (shutdown). */
    clear(): void;
    private arm;
    private disarm;
    private run;
    private push;
    private pop;
}
