/**
 * Keeps the lease of one running event alive: renews it every `renewAt` of the lease, fenced by the
 * delivery's `attempts`. On 409 `lease_lost` (or 404: the event is gone) it reports the loss once
 * and stops; the driver then aborts the handler and does not ack. It never throws, and stops as
 * soon as `done` aborts.
 */
import type { CapClient } from "../client.js";
import { CapHttpError, CapSdkError } from "../errors.js";
import type { Event } from "../types.js";
import type { Sleep } from "./time.js";

export interface LeaseKeeper {
  client: CapClient;
  event: Event;
  /** Lease length in ms. */
  leaseMs: number;
  /** Fraction of the lease after which to renew. */
  renewAt: number;
  sleep: Sleep;
  onRenew(leaseExpiresAt: string): void;
  onError(error: unknown): void;
  onLost(error: CapSdkError): void;
  /** The kernel has no renew route: stop trying for the rest of the run. */
  onUnsupported(): void;
}

export async function keepLease(keeper: LeaseKeeper, done: AbortSignal): Promise<void> {
  const interval = Math.max(10, keeper.leaseMs * keeper.renewAt);
  let wait = interval;
  while (!done.aborted) {
    await keeper.sleep(wait, done);
    if (done.aborted) return;
    try {
      const renewed = await keeper.client.renew(keeper.event.id, keeper.event.attempts, {
        signal: done,
        retries: 0,
        timeoutMs: Math.max(1000, interval / 2),
      });
      if (done.aborted) return;
      keeper.onRenew(renewed.leaseExpiresAt);
      wait = interval;
    } catch (error) {
      if (done.aborted) return;
      if (error instanceof CapHttpError && (error.status === 409 || error.code === "event_not_found")) {
        keeper.onLost(
          new CapSdkError("lease_lost", `lost the lease of event ${keeper.event.id}: ${error.message}`, {
            cause: error,
          }),
        );
        return;
      }
      if (error instanceof CapHttpError && (error.status === 404 || error.status === 405)) {
        keeper.onUnsupported();
        return;
      }
      keeper.onError(error);
      // A failed renew leaves little of the lease; try again sooner.
      wait = Math.max(10, interval / 4);
    }
  }
}
