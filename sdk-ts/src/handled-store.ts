/**
 * Where a driver remembers the events it has handled, so a redelivery (the ack was lost, the lease
 * ran out just before the ack) is re-acked without running the handler again. The store keeps the
 * ack result too, so the re-ack says what the first one said. Stores are bounded: they forget the
 * oldest ids first; the window only has to outlive the kernel's redelivery horizon.
 */
import type { AckResult } from "./types.js";

/** A bounded memory of handled event ids and how each was acked. May be sync or async. */
export interface HandledStore {
  /** The ack result recorded for `eventId`, or `undefined` when it was not handled. */
  get(eventId: string): AckResult | undefined | Promise<AckResult | undefined>;
  /** Record that `eventId` was handled; called before the ack is sent. */
  set(eventId: string, result: AckResult): void | Promise<void>;
}

/** An in-memory `HandledStore` that keeps the `capacity` most recently handled ids (default 1000). */
export class MemoryHandledStore implements HandledStore {
  readonly capacity: number;
  readonly #entries = new Map<string, AckResult>();

  constructor(options: { capacity?: number } = {}) {
    this.capacity = Math.max(1, options.capacity ?? 1000);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(eventId: string): AckResult | undefined {
    const result = this.#entries.get(eventId);
    if (result !== undefined) {
      // Refresh recency: a redelivered id is the one most likely to come back again.
      this.#entries.delete(eventId);
      this.#entries.set(eventId, result);
    }
    return result;
  }

  set(eventId: string, result: AckResult): void {
    this.#entries.delete(eventId);
    this.#entries.set(eventId, result);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** Ids from least to most recently handled, with their results (for persistence). */
  entries(): Array<[string, AckResult]> {
    return [...this.#entries];
  }
}
