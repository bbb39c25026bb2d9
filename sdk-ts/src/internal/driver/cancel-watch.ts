/**
 * Watches the delivery of every running handler for a cancel (CAP feature `cancel`): once a turn has
 * run `delayMs`, one long-poll at a time, `GET /events/{id}/cancellation?attempts=n&waitSeconds=20`,
 * again and again until the turn ends (its request is aborted then), the kernel answers that the
 * delivery was cancelled (`onCancel`, and the watch ends), or the delivery is no longer held (409
 * `lease_lost` or 404: the lease set's next renew finds that out as well and the driver's lease-lost
 * path handles it). A turn that ends within `delayMs` costs no request: the kernel answers a watch of
 * an already-cancelled delivery at once, so a cancel in the first `delayMs` is still seen `delayMs`
 * plus one round trip after it. Failures back off from the poll interval (network, timeouts, 5xx;
 * a 429 never sooner than its `Retry-After`), and so does a kernel that answers "not cancelled" far
 * sooner than the wait it was asked for: it must never poll in a tight loop. It never throws, and it
 * keeps at most one timer for the turns whose watch has not started.
 */
import type { CapClient } from "../../client.js";
import { CapHttpError } from "../../errors.js";
import type { Event } from "../../types.js";
import type { Clock, Sleep } from "../client/time.js";
import { Backoff } from "./backoff.js";

export interface CancelWatchOptions {
  client: CapClient;
  clock: Clock;
  sleep: Sleep;
  /** How long a turn runs before its watch starts, in ms. */
  delayMs: number;
  /** The first delay after a failed watch, in ms (the driver's poll interval). */
  retryBaseMs: number;
  /** The agent's stable delay offset, a fraction in [0, 0.2). */
  jitter: number;
  /** The kernel says the delivery was cancelled (by the watch, or a 409 carrying `details.cancelled`). */
  onCancel(event: Event, reason: string, requestedAt: string | undefined, cause?: unknown): void;
  onError(event: Event, error: unknown): void;
}

/** Seconds each watch waits: CAP-CANCEL-16's "at least 20", under the route's 25. */
export const WATCH_WAIT_SECONDS = 20;
/** An answer of "not cancelled" sooner than this did not wait as asked; the next one waits first. */
const EARLY_ANSWER_MS = 1000;

const TURN_OVER = Symbol("turn over");
const CLOSED = Symbol("closed");

interface Watched {
  event: Event;
  /** Local clock time at which the watch starts. */
  due: number;
  /** The running watch's abort, once started. */
  request?: AbortController;
}

/** Why a failed watch stops, or how long it waits before the next one. */
type Verdict =
  | { stop: true; cancelled?: { reason: string }; report?: boolean }
  | { stop: false; delayMs: number };

export class CancelWatch {
  readonly #o: CancelWatchOptions;
  readonly #turns = new Map<string, Watched>();
  readonly #closed = new AbortController();
  #scheduling = false;
  /** False once the kernel showed it has no watch route: no more watches this run. */
  #supported = true;

  constructor(options: CancelWatchOptions) {
    this.#o = options;
  }

  /** Watch `event`'s delivery (its handler just started) from `delayMs` on. */
  start(event: Event): void {
    if (!this.#supported || this.#closed.signal.aborted) return;
    this.#turns.set(event.id, { event, due: this.#o.clock() + this.#o.delayMs });
    if (!this.#scheduling) void this.#schedule();
  }

  /** Stop watching `id` (its handler settled, or the cancel is known): its request is aborted. */
  end(id: string): void {
    const watched = this.#turns.get(id);
    if (!watched) return;
    this.#turns.delete(id);
    watched.request?.abort(TURN_OVER);
  }

  /** Stop for good. */
  close(): void {
    this.#closed.abort(CLOSED);
    for (const id of [...this.#turns.keys()]) this.end(id);
  }

  /** Starts each turn's watch when it is due; returns when no turn waits for one. */
  async #schedule(): Promise<void> {
    this.#scheduling = true;
    try {
      while (!this.#closed.signal.aborted) {
        let next = Number.POSITIVE_INFINITY;
        for (const w of this.#turns.values()) if (!w.request) next = Math.min(next, w.due);
        if (next === Number.POSITIVE_INFINITY) return;
        const wait = next - this.#o.clock();
        if (wait > 0) {
          await this.#o.sleep(wait, this.#closed.signal);
          continue;
        }
        const now = this.#o.clock();
        for (const w of this.#turns.values()) if (!w.request && w.due <= now) void this.#watch(w);
      }
    } finally {
      this.#scheduling = false;
    }
  }

  async #watch(watched: Watched): Promise<void> {
    const { event } = watched;
    const request = new AbortController();
    watched.request = request;
    const current = () => this.#turns.get(event.id) === watched;
    let backoff: Backoff | undefined;
    while (current()) {
      let delayMs = 0;
      const sent = this.#o.clock();
      try {
        const answer = await this.#o.client.watchCancellation(
          event.id,
          { attempts: event.attempts, waitSeconds: WATCH_WAIT_SECONDS },
          { signal: request.signal, retries: 0 },
        );
        if (!current()) return;
        if (answer.cancelRequested) {
          this.#turns.delete(event.id);
          this.#o.onCancel(event, answer.reason, answer.requestedAt || undefined);
          return;
        }
        if (this.#o.clock() - sent >= EARLY_ANSWER_MS) backoff?.reset();
        else {
          backoff ??= this.#backoff();
          delayMs = backoff.next();
        }
      } catch (error) {
        if (!current()) return;
        const verdict = this.#judge(error);
        if (verdict.stop) {
          this.#turns.delete(event.id);
          if (verdict.cancelled) this.#o.onCancel(event, verdict.cancelled.reason, undefined, error);
          if (verdict.report) this.#o.onError(event, error);
          return;
        }
        this.#o.onError(event, error);
        backoff ??= this.#backoff();
        delayMs = backoff.next(verdict.delayMs);
      }
      if (delayMs > 0) await this.#o.sleep(delayMs, request.signal);
    }
  }

  #backoff(): Backoff {
    // Capped at one wait: through an outage a watch costs no more than an idle one does.
    return new Backoff(this.#o.retryBaseMs, this.#o.jitter, WATCH_WAIT_SECONDS * 1000);
  }

  /** What a failed watch means: stop (delivery gone or cancelled, route missing, a refusal) or retry. */
  #judge(error: unknown): Verdict {
    if (!(error instanceof CapHttpError)) return { stop: false, delayMs: 0 };
    const details = error.details;
    if (error.status === 409 && details?.cancelled === true)
      return { stop: true, cancelled: { reason: typeof details.reason === "string" ? details.reason : "requested" } };
    if (error.status === 409 || error.code === "event_not_found") return { stop: true };
    if (error.status === 429 || error.status >= 500)
      return { stop: false, delayMs: (error.retryAfterSeconds ?? 0) * 1000 };
    if (error.status === 404 || error.status === 405) {
      // Advertised but not routed: stop watching for the rest of the run (renewals still tell).
      this.#supported = false;
      for (const id of [...this.#turns.keys()]) this.end(id);
    }
    // 400, 401, 403…: another try would get the same answer; the poll loop deals with the token.
    return { stop: true, report: true };
  }
}
