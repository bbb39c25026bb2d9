/**
 * Keeps alive the lease of every event the driver holds — the one whose handler runs and the
 * fetched ones still waiting their turn — so no delivery lapses in the driver's hands and reaches
 * another poller (a batch of CLI turns can take longer than a lease). One loop renews each held
 * event once `renewAt` of its lease has passed, fenced by the delivery's `attempts`. On 409
 * `lease_lost` (or 404: the event is gone) it reports the loss once and forgets the event; the
 * driver then aborts that handler or skips that waiting event, and does not ack it. While a working
 * cancellation watch keeps a lease (the kernel renews it each time a watch of it ends without a
 * cancel), the loop does not renew it at `renewAt`: each watch answer counts as the renewal, and the
 * loop renews only as a backstop, when an eighth of the lease is left. When the watch stops working
 * the loop renews it again at `renewAt`, counted from its last known end. It never throws, and runs no
 * timer while it holds nothing (virtual-time tests depend on that).
 */
import type { CapClient } from "../../client.js";
import { CapHttpError, CapSdkError } from "../../errors.js";
import type { Event, TraceContext } from "../../types.js";
import type { Clock, Sleep } from "../client/time.js";

export interface LeaseSetOptions {
  client: CapClient;
  clock: Clock;
  sleep: Sleep;
  /** Fraction of the lease after which to renew. */
  renewAt: number;
  /** The lease length to assume for a freshly claimed event, in ms: what a renewal grants. */
  leaseMs(event: Event): number;
  /**
   * How much of this delivery's lease is left now, in ms (from its `leaseExpiresAt`). Less than a whole
   * lease when a replayed poll hands back deliveries claimed earlier.
   */
  leftMs(event: Event): number;
  /** The trace context a request on behalf of `event` sends. */
  traceOf(event: Event): TraceContext | undefined;
  onRenew(event: Event, leaseExpiresAt: string): void;
  onError(event: Event, error: unknown): void;
  onLost(event: Event, error: CapSdkError): void;
  /** The kernel has no renew route: stop trying for the rest of the run. */
  onUnsupported(): void;
}

/** Why the loop's sleep is cut short: a constant, so no DOMException is built per wake. */
const WAKE = Symbol("wake");

/**
 * The share of a watched lease left when the loop renews it anyway: later than the kernel ends a watch
 * (a third left), so only a late watch, or a kernel whose watch does not renew, costs a renew.
 */
const BACKSTOP_LEFT = 1 / 8;

interface Held {
  event: Event;
  /** The lease a renewal grants, in ms. */
  lease: number;
  /** Renew interval for this event, in ms. */
  interval: number;
  /** Local clock time at which the lease is known to end. */
  end: number;
  /** The kernel's last `leaseExpiresAt` of it, in ms since the epoch (NaN when it gave none). */
  expires: number;
  /** A working cancellation watch renews it: the loop only backs it up. */
  watched: boolean;
  /** Local clock time at which to renew next. */
  due: number;
}

export class LeaseSet {
  readonly #o: LeaseSetOptions;
  readonly #held = new Map<string, Held>();
  #wake = new AbortController();
  #running = false;
  #renewing = true;
  #closed = false;

  constructor(options: LeaseSetOptions) {
    this.#o = options;
  }

  /** Whether `id` is held (claimed, not yet settled, not lost). */
  holds(id: string): boolean {
    return this.#held.has(id);
  }

  /** Start keeping the lease of `event` (just claimed by a poll, or handed back by a replayed one). */
  hold(event: Event): void {
    if (this.#closed) return;
    const lease = this.#o.leaseMs(event);
    const interval = Math.max(10, lease * this.#o.renewAt);
    const left = Math.max(0, this.#o.leftMs(event));
    const now = this.#o.clock();
    // The first renewal comes after the same share of what is left of this lease, not of a whole one:
    // a delivery replayed 20 s into a 30 s lease would otherwise lapse before its first renewal.
    const first = Math.min(interval, left * this.#o.renewAt);
    this.#held.set(event.id, {
      event,
      lease,
      interval,
      end: now + left,
      expires: Date.parse(event.leaseExpiresAt ?? ""),
      watched: false,
      due: now + first,
    });
    this.#kick();
  }

  /**
   * Whether a working cancellation watch keeps the lease of `id`: `on` as its watch starts, off when a
   * watch fails. While it does, the loop renews it only as a backstop; once it does not, at `renewAt`
   * from its last known end (at once when that is past).
   */
  keptByWatch(id: string, on: boolean): void {
    const held = this.#held.get(id);
    if (!held || held.watched === on) return;
    held.watched = on;
    this.#schedule(held);
  }

  /**
   * A watch of `id` ended without a cancel, the lease running until `leaseExpiresAt`: when that is later
   * than the last end known the kernel renewed it, reported as a renewal, and the watch keeps the lease
   * if it waited as asked (`inTime`). An end no later means this kernel's watch did not renew (one that
   * predates the renewing watch, or one shutting down): the loop renews it until a watch does again.
   */
  renewedByWatch(id: string, leaseExpiresAt: string, inTime: boolean): void {
    const held = this.#held.get(id);
    if (!held) return;
    const expires = Date.parse(leaseExpiresAt);
    const renewed = Number.isFinite(expires) && (Number.isNaN(held.expires) || expires > held.expires);
    if (renewed) {
      const now = this.#o.clock();
      held.expires = expires;
      // By the local clock, and never past a whole lease from now: a kernel clock ahead must not delay renewals.
      held.end = now + Math.min(held.lease, Math.max(0, expires - now));
    }
    held.watched = renewed && inTime;
    this.#schedule(held);
    if (renewed) this.#o.onRenew(held.event, leaseExpiresAt);
  }

  /** Stop keeping the lease of `id` (acked, released, or given up). */
  drop(id: string): void {
    // Holding nothing, the loop must not keep a timer (it would keep a stopping process alive).
    if (this.#held.delete(id) && this.#held.size === 0) this.#wake.abort(WAKE);
  }

  /** Keep tracking what is held, but renew nothing any more (the kernel cannot). */
  stopRenewing(): void {
    this.#renewing = false;
    this.#wake.abort(WAKE);
  }

  /** Stop for good: nothing is held or renewed any more. */
  close(): void {
    this.#closed = true;
    this.#held.clear();
    this.#wake.abort(WAKE);
  }

  /** When to renew `held` next, from its lease's last known end. */
  #schedule(held: Held): void {
    const atRenewAt = held.end - held.lease + held.interval;
    held.due = held.watched ? Math.max(atRenewAt, held.end - held.lease * BACKSTOP_LEFT) : atRenewAt;
    // The loop may sleep for a later renewal than this one.
    this.#kick();
  }

  #kick(): void {
    if (!this.#renewing) return;
    if (this.#running) {
      // A new event may be due before the one the loop sleeps for.
      this.#wake.abort(WAKE);
      return;
    }
    this.#running = true;
    void this.#loop().finally(() => {
      this.#running = false;
      if (this.#held.size > 0 && !this.#closed && this.#renewing) this.#kick();
    });
  }

  async #loop(): Promise<void> {
    while (this.#held.size > 0 && !this.#closed && this.#renewing) {
      const next = Math.min(...[...this.#held.values()].map((h) => h.due));
      const wait = next - this.#o.clock();
      if (wait > 0) {
        this.#wake = new AbortController();
        await this.#o.sleep(wait, this.#wake.signal);
        continue;
      }
      const now = this.#o.clock();
      const due = [...this.#held.values()].filter((h) => h.due <= now);
      await Promise.all(due.map((h) => this.#renew(h)));
    }
  }

  async #renew(held: Held): Promise<void> {
    const { event, interval } = held;
    const sent = this.#o.clock();
    try {
      const renewed = await this.#o.client.renew(event.id, event.attempts, {
        retries: 0,
        timeoutMs: Math.max(1000, interval / 2),
        traceContext: this.#o.traceOf(event),
      });
      if (this.#held.get(event.id) !== held) return;
      held.end = sent + held.lease;
      held.expires = Date.parse(renewed.leaseExpiresAt);
      this.#schedule(held);
      this.#o.onRenew(event, renewed.leaseExpiresAt);
    } catch (error) {
      if (this.#held.get(event.id) !== held) return;
      if (error instanceof CapHttpError && (error.status === 409 || error.code === "event_not_found")) {
        this.drop(event.id);
        this.#o.onLost(
          event,
          new CapSdkError("lease_lost", `lost the lease of event ${event.id}: ${error.message}`, {
            cause: error,
          }),
        );
        return;
      }
      if (error instanceof CapHttpError && (error.status === 404 || error.status === 405)) {
        this.stopRenewing();
        this.#o.onUnsupported();
        return;
      }
      this.#o.onError(event, error);
      // A failed renew leaves little of the lease; try again sooner.
      held.due = this.#o.clock() + Math.max(10, interval / 4);
    }
  }
}
