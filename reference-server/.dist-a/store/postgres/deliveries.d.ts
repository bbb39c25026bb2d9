/**
 * PostgreSQL ops for the queue verbs added after the first release: release and the
 * deliveries of a `pollId` (semantics: ../README.md). A released delivery keeps state `leased` with its
 * lease moved to `availableAt` and `release_attempts = attempts` (see migrations/002), so the claim, the
 * retire step and the lease-expiry wake-ups of every replica treat it like a lease that ends then; the
 * release NOTIFYs so waiting polls everywhere re-read the agent's next lease end.
 *
 * Must never: read the clock.
 */
import type { DeliveryOpName, StoreOps } from "../contract.js";
import type { Db } from "./db.js";
type DeliveryOps = Omit<Pick<StoreOps, DeliveryOpName>, "ackEvents">;
export declare function deliveryOps(db: Db): DeliveryOps;
export {};
