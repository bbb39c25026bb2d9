/**
 * Acks of finished handlers, sent in batches without holding any back: group commit. An ack is sent
 * at once when no batch ack is in flight; acks of handlers that finish while one is in flight wait
 * for it and go together in the next request (at most `maxBatch` per request). So an ack waits at
 * most one batch-ack round trip plus its retries — never for another handler, a poll or a timer —
 * and under load (a batch of quick handlers) many acks share one request. Only acks of handlers
 * that finished enter the queue; `send` reports every outcome and never throws.
 */
import type { AckResult, Event } from "../../types.js";

export interface PendingAck {
  event: Event;
  result: AckResult;
  /** The event had been handled before; the handler was not run. */
  duplicate: boolean;
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
    this.#flushing = this.#flush().finally(() => {
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
