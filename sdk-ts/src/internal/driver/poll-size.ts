/**
 * How many events `runDriver` asks for per poll when its caller set no `limit`: 10 to start; doubled, up
 * to the kernel's `maxLimit`, after a full page its handlers cleared within a tenth of a lease; back to 10
 * after a batch that took more than a quarter of one. A page of quick handlers (an echo, a router) is then
 * claimed in one poll instead of five, while turns of minutes are claimed ten at a time as before: every
 * fetched event waits under a renewed lease until its turn, so claiming more than a lease's worth only
 * holds events nobody works on. Without `/info` the kernel's `maxLimit` is unknown and the size stays put.
 */

/** The default first page, and the floor the adaptive size returns to. */
export const START_LIMIT = 10;

export class PollSize {
  #limit: number;
  #ceiling: number;
  readonly #fixed: boolean;

  /** `fixed`: the caller's own `limit`, never changed but capped by `maxLimit`. */
  constructor(fixed?: number) {
    this.#fixed = fixed !== undefined;
    this.#limit = Math.max(1, fixed ?? START_LIMIT);
    this.#ceiling = this.#limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** The kernel's `/info` `maxLimit`: the largest page it accepts. */
  set maxLimit(max: number) {
    this.#ceiling = this.#fixed ? Math.min(this.#limit, max) : max;
    this.#limit = Math.max(1, Math.min(this.#limit, this.#ceiling));
  }

  /** A batch of `count` events, polled with `asked`, was handled and settled in `elapsedMs`. */
  handled(count: number, asked: number, elapsedMs: number, leaseMs: number): void {
    if (this.#fixed) return;
    if (elapsedMs > leaseMs / 4) this.#limit = Math.min(START_LIMIT, this.#ceiling);
    else if (count >= asked && elapsedMs <= leaseMs / 10)
      this.#limit = Math.min(this.#ceiling, this.#limit * 2);
  }
}
