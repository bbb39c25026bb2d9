import { ReadyScheduler, systemTimers } from "./ready-scheduler.js";
/**
 * How late, as a share of its wait, an empty wait may end. Measured on the idle bench (2,000 drivers in
 * 25 s waits, one SQLite kernel): a 100 ms tick cost 0.066 core, 500 ms 0.051, 1,000 ms 0.048, none 0.118.
 * The ends that share a tick share one wake-up of the process, and so do the drivers' re-polls after them.
 */
const SLACK_SHARE = 0.04;
/** Agents per backstop query (keeps parameter lists small on both stores). */
const SWEEP_CHUNK = 500;
export class WakeHub {
    store;
    options;
    byAgent = new Map();
    closed = false;
    unsubscribe;
    scheduler;
    timers;
    backstop = null;
    sweeping = null;
    sweepAgain = false;
    constructor(store, options) {
        this.store = store;
        this.options = options;
        this.timers = options.timers ?? systemTimers;
        this.scheduler = new ReadyScheduler(options.clock, (id) => this.wake(id), this.timers);
        this.unsubscribe = [
            store.onEventsReady((agentId) => this.wake(agentId)),
            store.onWakeupsMissed(() => void this.sweep()),
        ];
    }
    /**
     * `delayMs` from now, ending on the next tick of its slack: every wait ending in one tick fires in one
     * pass. The slack is the largest `slackMs / 2^k` within SLACK_SHARE of the whole wait (`waitMs`: the
     * poll's waitSeconds, of which `delayMs` is what is left), so a 25 s wait ends at most 1 s late (the
     * default slackMs) and a 1 s wait at most 31.25 ms; the ticks of shorter waits are ticks of the longer
     * ones' too.
     */
    slackedDelay(delayMs, now = performance.now(), waitMs = delayMs) {
        const delay = Math.max(0, delayMs);
        let slack = this.options.slackMs ?? 0;
        while (slack > 0 && slack > waitMs * SLACK_SHARE)
            slack = slack >= 1 ? slack / 2 : 0;
        if (slack <= 0)
            return delay;
        return Math.ceil((now + delay) / slack) * slack - now;
    }
    get isClosed() {
        return this.closed;
    }
    wake(agentId) {
        for (const e of this.byAgent.get(agentId) ?? []) {
            e.signalled = true;
            e.resolve?.("woken");
        }
    }
    /** How many polls of this agent are subscribed (waiting, or claiming before they wait). */
    waitersOf(agentId) {
        return this.byAgent.get(agentId)?.size ?? 0;
    }
    /** Wake the agent's polls at `at` (epoch ms): its next lease expiry or delayed-release instant. */
    wakeAt(agentId, at) {
        if (!this.closed)
            this.scheduler.at(agentId, at);
    }
    waiterCount() {
        let n = 0;
        for (const set of this.byAgent.values())
            n += set.size;
        return n;
    }
    /** Agents with an instant in the scheduler (metrics, tests). */
    scheduledCount() {
        return this.scheduler.size;
    }
    /** `waitMs`: the whole wait of the poll (its waitSeconds), which sets its slack; default each delay. */
    subscribe(agentId, waitMs) {
        const entry = { signalled: false, resolve: null };
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
                if (hub.closed)
                    return Promise.resolve("closed");
                if (signal?.aborted)
                    return Promise.resolve("aborted");
                if (entry.signalled)
                    return Promise.resolve("woken");
                return new Promise((resolve) => {
                    const done = (r) => {
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
                        if (left > 0)
                            timer = setTimeout(fire, left);
                        else
                            done("timer");
                    };
                    let timer = setTimeout(fire, end - performance.now());
                    signal?.addEventListener("abort", onAbort, { once: true });
                    entry.resolve = done;
                });
            },
            dispose() {
                entry.resolve = null;
                set.delete(entry);
                if (set.size === 0 && hub.byAgent.get(agentId) === set)
                    hub.byAgent.delete(agentId);
                if (hub.byAgent.size === 0)
                    hub.stopBackstop();
            },
        };
    }
    /**
     * One pass of the shared backstop: which waiting agents have an event ready now (woken) or at a later
     * instant (scheduled). A call while a pass runs queues exactly one more pass after it.
     */
    sweep() {
        if (this.closed)
            return Promise.resolve();
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
    async sweepOnce() {
        // SQLite, one process: nothing can be ready unseen unless another process wrote the file (2,000
        // waiting agents cost ~5 ms of queries per sweep, a tenth of the idle kernel's CPU).
        if (this.store.sweepNeeded?.() === false)
            return;
        const ids = [...this.byAgent.keys()];
        for (let i = 0; i < ids.length && !this.closed; i += SWEEP_CHUNK) {
            const now = this.options.clock.now();
            let found;
            try {
                found = await this.store.readyInstants({
                    agentIds: ids.slice(i, i + SWEEP_CHUNK),
                    now,
                    maxAttempts: this.options.maxAttempts,
                });
            }
            catch {
                return; // the store is unreachable: the waiting polls end at their deadline; the next tick retries
            }
            for (const { agentId, at } of found) {
                if (at <= now)
                    this.wake(agentId);
                else
                    this.wakeAt(agentId, at);
            }
        }
    }
    startBackstop() {
        if (this.backstop !== null || this.closed)
            return;
        const tick = () => {
            this.backstop = this.timers.set(tick, this.options.backstopMs);
            void this.sweep();
        };
        this.backstop = this.timers.set(tick, this.options.backstopMs);
    }
    stopBackstop() {
        if (this.backstop !== null)
            this.timers.clear(this.backstop);
        this.backstop = null;
    }
    /** Release every waiting poll and refuse new waits. */
    close() {
        if (this.closed)
            return;
        this.closed = true;
        for (const u of this.unsubscribe)
            u();
        this.stopBackstop();
        this.scheduler.clear();
        for (const set of this.byAgent.values())
            for (const e of set)
                e.resolve?.("closed");
    }
}
//# sourceMappingURL=wake-hub.js.map