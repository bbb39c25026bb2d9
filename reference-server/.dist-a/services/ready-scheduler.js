export const systemTimers = {
    set: (fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref();
        return t;
    },
    clear: (h) => clearTimeout(h),
};
/** setTimeout's ceiling (~24.8 days); a later instant simply re-arms when this fires. */
const MAX_DELAY = 2 ** 31 - 1;
export class ReadyScheduler {
    clock;
    fire;
    timers;
    heap = [];
    /** agentId → its earliest scheduled instant (heap entries with another value are stale). */
    earliest = new Map();
    timer = null;
    armedFor = Number.POSITIVE_INFINITY;
    constructor(clock, fire, timers = systemTimers) {
        this.clock = clock;
        this.fire = fire;
        this.timers = timers;
    }
    /** How many agents have an instant scheduled (metrics, tests). */
    get size() {
        return this.earliest.size;
    }
    /** Wake `agentId` at `at` (epoch ms) unless an earlier instant is already scheduled for it. */
    at(agentId, at) {
        const known = this.earliest.get(agentId);
        if (known !== undefined && known <= at)
            return;
        this.earliest.set(agentId, at);
        this.push({ at, agentId });
        if (at < this.armedFor)
            this.arm();
    }
    /** Forget every instant and disarm (shutdown). */
    clear() {
        this.heap.length = 0;
        this.earliest.clear();
        this.disarm();
    }
    arm() {
        this.disarm();
        const top = this.heap[0];
        if (!top)
            return;
        this.armedFor = top.at;
        const delay = Math.min(MAX_DELAY, Math.max(0, top.at - this.clock.now()));
        this.timer = this.timers.set(() => this.run(), delay);
    }
    disarm() {
        if (this.timer !== null)
            this.timers.clear(this.timer);
        this.timer = null;
        this.armedFor = Number.POSITIVE_INFINITY;
    }
    run() {
        this.timer = null;
        this.armedFor = Number.POSITIVE_INFINITY;
        const now = this.clock.now();
        const due = [];
        while (this.heap.length > 0 && this.heap[0].at <= now) {
            const e = this.pop();
            if (this.earliest.get(e.agentId) !== e.at)
                continue; // superseded by an earlier instant
            this.earliest.delete(e.agentId);
            due.push(e.agentId);
        }
        this.arm();
        for (const id of due) {
            try {
                this.fire(id);
            }
            catch {
                // one agent's wake-up must not stop the others
            }
        }
    }
    push(e) {
        const h = this.heap;
        h.push(e);
        let i = h.length - 1;
        while (i > 0) {
            const p = (i - 1) >> 1;
            if (h[p].at <= e.at)
                break;
            h[i] = h[p];
            i = p;
        }
        h[i] = e;
    }
    pop() {
        const h = this.heap;
        const top = h[0];
        const last = h.pop();
        if (h.length === 0 || !last)
            return top;
        let i = 0;
        for (;;) {
            const l = 2 * i + 1;
            if (l >= h.length)
                break;
            const r = l + 1;
            const c = r < h.length && h[r].at < h[l].at ? r : l;
            if (h[c].at >= last.at)
                break;
            h[i] = h[c];
            i = c;
        }
        h[i] = last;
        return top;
    }
}
//# sourceMappingURL=ready-scheduler.js.map