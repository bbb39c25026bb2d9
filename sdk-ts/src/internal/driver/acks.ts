/**
 * Acks of finished handlers, sent in batches without holding any back: group commit. When no batch
 * ack is in flight, an ack goes out at the end of the current macrotask (`setImmediate`, else
 * `setTimeout(0)`), together with every ack pushed in that same tick — the handlers of a poll that
 * finish at once share one request instead of the first going alone; acks of handlers that finish
 * while a request is in flight wait for it and go together in the next one (at most `maxBatch` per
 * request). So an ack waits at most one tick plus one batch-ack round trip and its retries — never
 * for another handler, a poll or a timer — and under load many acks share one request. Only acks
 * of handlers that finished enter the queue; `send` reports every outcome and never throws.
 */
import type { AckResult, Event } from "../../types.js";

export interface PendingAck {
  event: Event;
  result: AckResult;
  /** The event had been handled before; the handler was not run. */
  duplicate: boolean;
}

type Defer = (run: () => void) => void;

/** The end of the current macrotask: after every microtask (and so every handler) it lets finish. */
function endOfTick(): Defer {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  return typeof immediate === "function" ? (run) => void immediate(run) : (run) => void setTimeout(run, 0);
}

export class AckQueue {
  readonly #send: (batch: PendingAck[]) => Promise<void>;
  readonly #maxBatch: number;
  #pending: PendingAck[] = [];
  #flushing: Promise<void> | undefined;

  constructor(send: (batch: PendingAck[]) => Promise<void>, maxBatch = 100) {
    this.#send = send;
    this.#maxBatch = maxBatch;
  }

  get size(): number {
    return this.#pending.length;
  }

  push(ack: PendingAck): void {
    this.#pending.push(ack);
    this.#kick();
  }

  /** Resolves once every ack pushed so far has been sent (or its failure reported). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  #kick(): void {
    if (this.#flushing) return;
    const tick = new Promise<void>((resolve) => endOfTick()(resolve));
    this.#flushing = tick
      .then(() => this.#flush())
      .finally(() => {
        this.#flushing = undefined;
        // An ack pushed after the last send returned but before this ran.
        if (this.#pending.length > 0) this.#kick();
      });
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#maxBatch);
      await this.#send(batch);
    }
  }
}
