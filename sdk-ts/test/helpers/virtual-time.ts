/**
 * Virtual time for driver unit tests: `clock()` and `sleep()` to inject into `runDriver`. Time only
 * moves when the process is otherwise idle (no pending I/O callbacks or microtasks): then the earliest
 * timer fires and the clock jumps to its due time. Deterministic, and a 15-minute circuit takes no
 * real time at all.
 */
interface Timer {
  due: number;
  seq: number;
  resolve: () => void;
}

export class VirtualTime {
  now = 1_800_000_000_000;
  readonly sleeps: number[] = [];
  #timers: Timer[] = [];
  #seq = 0;
  #pumping = false;
  #stopped = false;

  clock = (): number => this.now;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(ms);
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer: Timer = { due: this.now + Math.max(0, ms), seq: this.#seq++, resolve };
      const onAbort = () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        resolve();
      };
      timer.resolve = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#timers.push(timer);
      this.#pump();
    });
  };

  #pump(): void {
    if (this.#pumping || this.#stopped) return;
    this.#pumping = true;
    // Two macrotask hops let chains of awaits settle before time moves.
    setImmediate(() =>
      setImmediate(() => {
        this.#pumping = false;
        if (this.#stopped || this.#timers.length === 0) return;
        this.#timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
        const next = this.#timers.shift()!;
        this.now = Math.max(this.now, next.due);
        next.resolve();
        this.#pump();
      }),
    );
  }

  /** Stop firing timers (end of test). */
  stop(): void {
    this.#stopped = true;
  }
}
