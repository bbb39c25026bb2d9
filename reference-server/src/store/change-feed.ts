/**
 * The listener half of a store's change feed (contract.ts, StoreChanges), shared by both dialects: each
 * dialect decides when to announce and what it can promise (authTrusted, readyComplete).
 *
 * Must never: let one listener's throw keep a change from the others, or from the store's caller.
 */
import type { StoreChange, StoreChanges } from "./contract.js";

const AUTH: StoreChange = { kind: "auth" };
const GAP: StoreChange = { kind: "gap" };

export interface ChangeFeedPromises {
  authTrusted(): boolean;
  readonly authMaxAgeMs: number;
  readyComplete(): boolean;
  cancelComplete(): boolean;
}

export class ChangeFeed implements StoreChanges {
  private readonly listeners = new Set<(change: StoreChange) => void>();
  readonly authMaxAgeMs: number;

  constructor(private readonly promises: ChangeFeedPromises) {
    this.authMaxAgeMs = promises.authMaxAgeMs;
  }

  subscribe(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  authTrusted(): boolean {
    return this.promises.authTrusted();
  }

  readyComplete(): boolean {
    return this.promises.readyComplete();
  }

  cancelComplete(): boolean {
    return this.promises.cancelComplete();
  }

  ready(agentId: string): void {
    if (this.listeners.size > 0) this.emit({ kind: "ready", agentId });
  }

  cancel(agentId: string, eventId: string): void {
    if (this.listeners.size > 0) this.emit({ kind: "cancel", agentId, eventId });
  }

  auth(): void {
    this.emit(AUTH);
  }

  gap(): void {
    this.emit(GAP);
  }

  /** The store is closing: no one hears anything more. */
  close(): void {
    this.listeners.clear();
  }

  private emit(change: StoreChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // a listener's fault is its own; the change still reaches the others
      }
    }
  }
}
