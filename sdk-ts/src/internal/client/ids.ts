/**
 * Small helpers of the client: random keys (`Idempotency-Key`, `pollId`) from Web Crypto, and how to
 * tell a kernel without the batch-ack route from a refused batch ack. No Node built-ins.
 */
import { CapHttpError } from "../../errors.js";

export function randomKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh `pollId` (a UUID: 36 characters of `0-9a-f-`, within `^[A-Za-z0-9_-]{1,64}$`). */
export function newPollId(): string {
  return randomKey();
}

/** Items per `POST /events/ack` request (CAP's bound). */
export const MAX_BATCH_ACK = 100;

/** The kernel has no batch-ack route (it answered as for an unknown route). */
export function noSuchRoute(error: unknown): boolean {
  if (!(error instanceof CapHttpError)) return false;
  if (error.status === 405 || error.status === 501) return true;
  return error.status === 404 && error.code !== "event_not_found";
}
