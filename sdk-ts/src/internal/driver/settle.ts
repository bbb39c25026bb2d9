/**
 * How the driver settles what it holds: acks (through batch ack when the kernel advertises
 * `batch-ack`, grouped by `AckQueue`; one `ack` per event otherwise, awaited) and releases (when
 * the kernel advertises `release`; otherwise the lease is left to lapse, as before the verb
 * existed). It reports every outcome through the callbacks and never throws. It never acks an
 * event by itself: only what the driver hands it, after the handler finished.
 * It also remembers, for the driver's backoff, what went wrong since the driver last asked
 * (`takeTrouble`: acks refused, or answered with something it cannot act on) and which events this
 * run settled (`settled`: the kernel confirmed the ack, or answered that the event is gone), so an
 * acked event that comes back shows a kernel that does not keep its acks.
 */
import type { CapClient } from "../../client.js";
import { CapHttpError } from "../../errors.js";
import type { AckResult, Event, TraceContext } from "../../types.js";
import { AckQueue, type PendingAck } from "./acks.js";

export interface SettlerHooks {
  onAck(ack: PendingAck): void;
  onError(stage: "ack" | "release", error: unknown, event: Event): void;
  onRelease(info: { event: Event; delaySeconds: number; reason: string; status: "pending" | "failed" }): void;
}

/** What went wrong settling the last batch: the driver backs off before its next poll. */
export interface Trouble {
  reason: string;
  /** The longest `Retry-After` among the failures, in ms (0 without one). */
  retryAfterMs: number;
}

/** How many settled ids to remember: more than a batch (at most 50) several times over. */
const SETTLED_IDS = 1000;

/** The kernel says the event is no longer this driver's to ack: it is settled as far as the driver goes. */
function gone(error: unknown): boolean {
  return error instanceof CapHttpError && (error.code === "event_not_found" || error.code === "lease_lost");
}

/** CAP bounds of a release. */
const MAX_DELAY_SECONDS = 900;
const MAX_REASON = 500;

// Reasons reach the kernel and its console: never a credential, even from a handler's error text.
const SECRETS = [/Bearer\s+[A-Za-z0-9._~+/=-]+/gi, /cm_(?:agent|user)_[A-Za-z0-9_-]+/g];

export function releaseReason(text: string): string {
  const clean = SECRETS.reduce((s, re) => s.replace(re, "[redacted]"), text)
    .replace(/\s+/g, " ")
    .trim();
  return clean.length > MAX_REASON ? `${clean.slice(0, MAX_REASON - 1)}…` : clean;
}

/** A circuit delay as whole seconds, rounded down so the event is ready when the probe polls. */
export function delaySecondsOf(delayMs: number): number {
  return Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.floor(delayMs / 1000)));
}

export class Settler {
  /** Ack through `POST /events/ack` (the kernel advertises `batch-ack`). */
  batchAck = false;
  /** Give deliveries back with `POST /events/{id}/release` (the kernel advertises `release`). */
  release = false;
  readonly #client: CapClient;
  readonly #hooks: SettlerHooks;
  readonly #traceOf: (event: Event) => TraceContext | undefined;
  readonly #queue: AckQueue;
  /** Insertion-ordered, so the oldest id is evicted first. */
  readonly #settled = new Set<string>();
  #failures = 0;
  #trouble: Trouble | undefined;

  /** `traceOf`: the trace context a request on behalf of one event sends (a batch ack sends none). */
  constructor(
    client: CapClient,
    hooks: SettlerHooks,
    traceOf: (event: Event) => TraceContext | undefined = () => undefined,
  ) {
    this.#client = client;
    this.#hooks = hooks;
    this.#traceOf = traceOf;
    this.#queue = new AckQueue((batch) => this.#sendBatch(batch));
  }

  /** Ack a finished event: queued for the next batch ack, or sent now and awaited. */
  async ack(event: Event, result: AckResult, duplicate: boolean): Promise<void> {
    if (this.batchAck) {
      this.#queue.push({ event, result, duplicate });
      return;
    }
    try {
      await this.#client.ack(event.id, result, { traceContext: this.#traceOf(event) });
      this.#acked({ event, result, duplicate });
    } catch (error) {
      this.#failed(error, event);
    }
  }

  /** Whether this run settled event `id` (the kernel confirmed its ack, or said it is gone). */
  settled(id: string): boolean {
    return this.#settled.has(id);
  }

  /** What went wrong settling since the last call, then forgets it; `undefined` when nothing did. */
  takeTrouble(): Trouble | undefined {
    const trouble = this.#trouble;
    if (trouble && this.#failures > 1)
      trouble.reason = `${this.#failures} acks failed, the first: ${trouble.reason}`;
    this.#trouble = undefined;
    this.#failures = 0;
    return trouble;
  }

  #remember(id: string): void {
    this.#settled.delete(id);
    this.#settled.add(id);
    if (this.#settled.size > SETTLED_IDS) this.#settled.delete(this.#settled.values().next().value!);
  }

  #acked(ack: PendingAck): void {
    this.#remember(ack.event.id);
    this.#hooks.onAck(ack);
  }

  /** An ack that did not go through: reported, and counted as trouble unless the event is gone. */
  #failed(error: unknown, event: Event): void {
    if (gone(error)) this.#remember(event.id);
    else {
      this.#failures++;
      const retryAfterMs =
        error instanceof CapHttpError && error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : 0;
      const message = error instanceof Error ? error.message : String(error);
      this.#trouble = {
        reason: this.#trouble?.reason ?? `ack of ${event.id} failed: ${message}`,
        retryAfterMs: Math.max(this.#trouble?.retryAfterMs ?? 0, retryAfterMs),
      };
    }
    this.#hooks.onError("ack", error, event);
  }

  /** Resolves once every queued ack has been sent or its failure reported. */
  drain(): Promise<void> {
    return this.#queue.drain();
  }

  /**
   * Give `event` back, ready again in `delaySeconds`. Resolves true when the kernel took it back;
   * false when release is not available or failed (the lease then lapses on its own).
   */
  async giveBack(event: Event, delaySeconds: number, reason: string): Promise<boolean> {
    if (!this.release) return false;
    const text = releaseReason(reason);
    try {
      const answer = await this.#client.release(
        event.id,
        { attempts: event.attempts, delaySeconds, ...(text ? { reason: text } : {}) },
        { retries: 1, timeoutMs: 10_000, traceContext: this.#traceOf(event) },
      );
      this.#hooks.onRelease({ event, delaySeconds, reason: text, status: answer.status });
      return true;
    } catch (error) {
      // A kernel that advertised release but has no route: stop trying.
      if (error instanceof CapHttpError && (error.status === 405 || error.code === "route_not_found"))
        this.release = false;
      this.#hooks.onError("release", error, event);
      return false;
    }
  }

  async #sendBatch(batch: PendingAck[]): Promise<void> {
    try {
      const { results } = await this.#client.ackMany(
        batch.map((a) => ({ id: a.event.id, result: a.result })),
      );
      results.forEach((r, i) => {
        const ack = batch[i]!;
        if (r.ok) this.#acked(ack);
        else
          this.#failed(
            new CapHttpError({
              status: 200,
              code: r.code,
              message: `the batch ack did not settle event ${r.id}`,
              details: { eventId: r.id },
              operation: "POST /events/ack",
            }),
            ack.event,
          );
      });
    } catch (error) {
      for (const ack of batch) this.#failed(error, ack.event);
    }
  }
}
