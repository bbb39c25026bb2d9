/**
 * What the events services report as they work (lease expiries, dead letters, cancels), for metrics. Its
 * own module so the events service, the queue verbs, cancellations and messages all take it without
 * importing each other.
 */
export interface EventsObserver {
  leaseExpired(n: number): void;
  deadLettered(n: number): void;
  /** Events cancelled, by reason class: `superseded` (double texting) or `requested` (any other reason). */
  cancelled(reason: "requested" | "superseded", n: number): void;
}

export const noopObserver: EventsObserver = {
  leaseExpired: () => {},
  deadLettered: () => {},
  cancelled: () => {},
};
