/**
 * The 409 a renew or release answers when its delivery no longer holds the lease: plain `lease_lost`, or,
 * when the event was cancelled (feature `cancel`), with `details: {cancelled: true, reason}` so a driver
 * that never watches still learns of the cancel at its next renew (CAP-CANCEL-7).
 */
import { fail } from "../errors/registry.js";
import type { LeaseLost } from "../store/contract.js";

export function leaseLost(r: LeaseLost): never {
  if (r.cancelled) fail("lease_lost", undefined, { cancelled: true, reason: r.cancelled.reason });
  fail("lease_lost");
}
