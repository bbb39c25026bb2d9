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

export const systemTimers: Timers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** setTimeout's ceiling (~24.8 days); a later instant simply re-arms when this fires. */
const MAX_DELAY = 2 ** 31 - 1;

interface Entry {
  at: number;
  agentId: string;
}

export class ReadyScheduler {
  private readonly heap: Entry[] = [];
  /** agentId → its earliest scheduled instant (heap entries with another value are stale). */
  private readonly earliest = new Map<string, number>();
  private timer: unknown = null;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (agentId: string) => void,
    private readonly timers: Timers = systemTimers,
  ) {}

  /** How many agents have an instant scheduled (metrics, tests). */
  get size(): number {
    return this.earliest.size;
  }

  /** Wake `agentId` at `at` (epoch ms) unless an earlier instant is already scheduled for it. */
  at(agentId: string, at: number): void {
    const known = this.earliest.get(agentId);
    if (known !== undefined && known <= at) return;
    this.earliest.set(agentId, at);
    this.push({ at, agentId });
    if (at < this.armedFor) this.arm();
  }

  /** Forget every instant and disarm (shutdown). */
  clear(): void {
    this.heap.length = 0;
    this.earliest.clear();
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    const top = this.heap[0];
    if (!top) return;
    this.armedFor = top.at;
    const delay = Math.min(MAX_DELAY, Math.max(0, top.at - this.clock.now()));
    this.timer = this.timers.set(() => this.run(), delay);
  }

  private disarm(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private run(): void {
    this.timer = null;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const due: string[] = [];
    while (this.heap.length > 0 && this.heap[0]!.at <= now) {
      const e = this.pop()!;
      if (this.earliest.get(e.agentId) !== e.at) continue; // superseded by an earlier instant
      this.earliest.delete(e.agentId);
      due.push(e.agentId);
    }
    this.arm();
    for (const id of due) {
      try {
        this.fire(id);
      } catch {
        // one agent's wake-up must not stop the others
      }
    }
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.at <= e.at) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  private pop(): Entry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || !last) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && h[r]!.at < h[l]!.at ? r : l;
      if (h[c]!.at >= last.at) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
    return top;
  }
}
