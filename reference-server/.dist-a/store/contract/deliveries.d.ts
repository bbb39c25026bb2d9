/**
 * Store operations for the queue verbs added after the first release: release, batch ack, and the
 * deliveries of a `pollId` (semantics: ../README.md, migration 002).
 */
import type { DeliveredEvent } from "../records.js";
export type ReleaseResult = {
    status: "released";
    availableAt: number;
} | {
    status: "failed";
} | {
    status: "not_found";
} | {
    status: "lease_lost";
};
export interface ReleaseInput {
    agentId: string;
    eventId: string;
    /** The delivery being given back. */
    attempts: number;
    /** When the event becomes ready again (now + delay). */
    availableAt: number;
    reason: string | null;
    maxAttempts: number;
    now: number;
}
export interface DeliveriesStore {
    /**
     * Gives a delivery back iff the event is `leased`, its `attempts` equal the given ones, its lease runs
     * (> now) and that delivery was not released already — the fence of renewLease. Then: with budget left,
     * the lease moves to `availableAt` and the delivery is marked released (`releasedAttempts = attempts`),
     * and the agent's long-polls are woken after commit; with the budget used (`attempts - attemptBase >=
     * maxAttempts`) the event becomes `failed` at once (`failReason` "released", failedAt = now). Either way
     * `releaseReason` = reason. `not_found` for unknown/foreign ids, `lease_lost` otherwise.
     */
    releaseEvent(input: ReleaseInput): Promise<ReleaseResult>;
    /**
     * Acks several events in one transaction, each exactly as ackEvent (the first ack of an id wins, also
     * within one call). Returns, per item in order, whether the event is the agent's (now acked).
     */
    ackEvents(input: {
        agentId: string;
        items: {
            eventId: string;
            result: unknown;
        }[];
        now: number;
    }): Promise<boolean[]>;
    /**
     * The deliveries still held that were claimed under `pollId` for this agent (leased, lease > now, not
     * released, attempts unchanged since), oldest first. Inside a transaction it also serialises concurrent
     * callers with the same (agentId, pollId) until commit (PostgreSQL: an advisory transaction lock).
     */
    findPollDeliveries(input: {
        agentId: string;
        pollId: string;
        now: number;
    }): Promise<DeliveredEvent[]>;
    /** Records that these just-claimed deliveries were claimed under `pollId` (for findPollDeliveries). */
    tagPollDeliveries(input: {
        agentId: string;
        pollId: string;
        eventIds: string[];
    }): Promise<void>;
}
