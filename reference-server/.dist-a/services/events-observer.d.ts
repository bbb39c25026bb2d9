/**
 * What the events service reports as it works (lease expiries, dead letters), for metrics. Its own module
 * so the events service and the queue verbs beside it both take it without importing each other.
 */
export interface EventsObserver {
    leaseExpired(n: number): void;
    deadLettered(n: number): void;
}
export declare const noopObserver: EventsObserver;
