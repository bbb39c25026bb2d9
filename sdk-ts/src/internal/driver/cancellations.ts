/**
 * What the driver knows of cancels (CAP feature `cancel`) of the events it holds, and how it learns
 * them. Where the kernel advertises `cancel`, the delivery of every running handler is watched once the
 * turn has run `WATCH_AFTER_MS`: one long-poll at a time, `GET /events/{id}/cancellation?attempts=n&
 * waitSeconds=20`, again and again until the turn ends (its request is aborted then), the kernel
 * answers that the delivery was cancelled, or the delivery is no longer held (409 `lease_lost` or 404
 * `event_not_found`: reported at once through `onLost`, as a renew's would be, so the handler posts
 * nothing more for a delivery the kernel already said it lost, CAP-DRV-21). A
 * renew answered 409 with `details.cancelled` (any kernel, watched or not) is the other way in. Each
 * cancel is reported once (`onCancel`) and kept until the driver takes it to ack the event.
 * A watch that ends without a cancel has renewed the lease (the kernel ends it when a third of the
 * lease is left, at the latest, and renews it then): while the watch works the driver sends no renew
 * of that delivery, and each such answer counts as one (`onQuiet`). From a watch's failure
 * (`onKeeping` false) until one is answered again, the driver's lease set renews as usual.
 * Failures of a watch back off from the poll interval (network, timeouts, 5xx; a 429 never sooner
 * than its `Retry-After`), and so does a kernel that answers "not cancelled" far sooner than the wait
 * it was asked for: a watch must never poll in a tight loop. It never throws, and keeps at most one
 * timer for the turns whose watch has not started.
 */
import type { CapClient } from "../../client.js";
import { CancelledError, CapHttpError, CapSdkError } from "../../errors.js";
import type { Event, TraceContext } from "../../types.js";
import type { Clock, Sleep } from "../client/time.js";
import { Backoff } from "./backoff.js";

export interface CancellationsOptions {
  client: CapClient;
  clock: Clock;
  sleep: Sleep;
  /** The first delay after a failed watch, in ms (the driver's poll interval). */
  retryBaseMs: number;
  /** The agent's stable delay offset, a fraction in [0, 0.2). */
  jitter: number;
  /** The trace context a request on behalf of `event` sends. */
  traceOf(event: Event): TraceContext | undefined;
  /** A held event was cancelled (called once per event): stop holding it, abort its handler. */
  onCancel(event: Event, error: CancelledError): void;
  /** A watch was answered that the delivery is no longer held (409 `lease_lost`, 404): it is lost. */
  onLost(event: Event, error: CapSdkError): void;
  /** A watch failed (it is retried, or ends when retrying cannot help). */
  onError(event: Event, error: unknown): void;
  /** Whether the watch of `event` keeps its lease: true as it starts, false when a watch fails. */
  onKeeping(event: Event, keeping: boolean): void;
  /**
   * A watch of `event` ended without a cancel, the lease running until `leaseExpiresAt`; `inTime`: it
   * waited as asked (an answer far sooner is followed by a backoff, not by the next watch).
   */
  onQuiet(event: Event, leaseExpiresAt: string, inTime: boolean): void;
}

/**
 * How long a handler runs before its delivery is watched. Handlers that finish sooner (a drain's quick
 * ones) cost no request; a cancel in that window is still seen within it plus one round trip, because
 * the kernel answers a watch of an already-cancelled delivery at once: well inside the one second from
 * the cancel that CAP-CANCEL-10 asks of a watch.
 */
export const WATCH_AFTER_MS = 250;

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
  | { stop: true; cancelled?: { reason: string }; lost?: boolean; report?: boolean }
  | { stop: false; delayMs: number };

export class Cancellations {
  /** Watch running handlers: the kernel advertises `cancel`. */
  watching = false;
  readonly #o: CancellationsOptions;
  readonly #turns = new Map<string, Watched>();
  /** Cancels learned, by event id, until the driver takes them. */
  readonly #known = new Map<string, CancelledError>();
  readonly #closed = new AbortController();
  #scheduling = false;
  /** False once the kernel showed it has no watch route: no more watches this run. */
  #supported = true;

  constructor(options: CancellationsOptions) {
    this.#o = options;
  }

  /** Watch `event`'s delivery (its handler just started) from `WATCH_AFTER_MS` on. */
  start(event: Event): void {
    if (!this.watching || !this.#supported || this.#closed.signal.aborted) return;
    this.#turns.set(event.id, { event, due: this.#o.clock() + WATCH_AFTER_MS });
    if (!this.#scheduling) void this.#schedule();
  }

  /** A renew (or release) lost the lease: when the kernel said it was cancelled, learn it; true then. */
  fromLost(event: Event, lost: CapSdkError): boolean {
    const answer = lost.cause;
    if (!(answer instanceof CapHttpError && answer.status === 409 && answer.details?.cancelled === true))
      return false;
    this.#learn(event, reasonOf(answer.details), undefined, answer);
    return true;
  }

  /** The cancel learned of `id`, forgotten: the driver acks it now, or it came too late to matter. */
  take(id: string): CancelledError | undefined {
    const known = this.#known.get(id);
    this.#known.delete(id);
    return known;
  }

  #learn(event: Event, reason: string, requestedAt: string | undefined, cause?: unknown): void {
    this.end(event.id);
    if (this.#known.has(event.id)) return;
    const error = new CancelledError(
      event.id,
      reason,
      requestedAt,
      cause === undefined ? undefined : { cause },
    );
    this.#known.set(event.id, error);
    this.#o.onCancel(event, error);
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
    this.#o.onKeeping(event, true);
    while (current()) {
      let delayMs = 0;
      const sent = this.#o.clock();
      try {
        const answer = await this.#o.client.watchCancellation(
          event.id,
          { attempts: event.attempts, waitSeconds: WATCH_WAIT_SECONDS },
          { signal: request.signal, retries: 0, traceContext: this.#o.traceOf(event) },
        );
        if (!current()) return;
        if (answer.cancelRequested) {
          this.#learn(event, answer.reason, answer.requestedAt || undefined);
          return;
        }
        const inTime = this.#o.clock() - sent >= EARLY_ANSWER_MS;
        // Until a watch waits as asked, the lease set renews: the next answer is a backoff away.
        this.#o.onQuiet(event, answer.leaseExpiresAt, inTime);
        if (inTime) backoff?.reset();
        else {
          backoff ??= this.#backoff();
          delayMs = backoff.next();
        }
      } catch (error) {
        if (!current()) return;
        // Whether it is retried or not, renewals take over now.
        this.#o.onKeeping(event, false);
        const verdict = this.#judge(error);
        if (verdict.stop) {
          this.end(event.id);
          if (verdict.cancelled) this.#learn(event, verdict.cancelled.reason, undefined, error);
          if (verdict.lost) {
            const message = error instanceof Error ? error.message : String(error);
            this.#o.onLost(
              event,
              new CapSdkError("lease_lost", `lost the lease of event ${event.id}: ${message}`, {
                cause: error,
              }),
            );
          }
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
      return { stop: true, cancelled: { reason: reasonOf(details) } };
    if (error.status === 409 || error.code === "event_not_found") return { stop: true, lost: true };
    if (error.status === 429 || error.status >= 500)
      return { stop: false, delayMs: (error.retryAfterSeconds ?? 0) * 1000 };
    if (error.status === 404 || error.status === 405) {
      // Advertised but not routed: stop watching for the rest of the run (renewals still tell).
      this.#supported = false;
      for (const [id, w] of [...this.#turns]) {
        if (w.request) this.#o.onKeeping(w.event, false);
        this.end(id);
      }
    }
    // 400, 401, 403…: another try would get the same answer; the poll loop deals with the token.
    return { stop: true, report: true };
  }
}

function reasonOf(details: Record<string, unknown>): string {
  return typeof details.reason === "string" ? details.reason : "requested";
}
