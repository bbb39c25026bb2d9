/**
 * SQLite ops for the queue verbs added after the first release: release (a delivery given back, ready
 * again at `availableAt`), batch ack (one transaction), and the deliveries of a `pollId` (retry-safe polls).
 * A released delivery keeps state `leased` with its lease moved to `availableAt` and `release_attempts =
 * attempts`, so claim, retire and lease-expiry wake-ups need no change (see migrations/002).
 */
import type { DeliveryOpName } from "../contract.js";
import type { SqliteContext, SyncOps } from "./types.js";
type DeliveryOps = Pick<SyncOps, DeliveryOpName>;
export declare function deliveryOps({ db, notify }: SqliteContext): DeliveryOps;
export {};
