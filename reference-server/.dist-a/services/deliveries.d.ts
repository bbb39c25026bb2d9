/**
 * The queue verbs added after the first release, beside the events service: release (a delivery given
 * back, ready again after a delay), batch ack (one transaction, per-item results) and the claim of a poll
 * that carries a `pollId` (a retry answers the deliveries the first attempt made instead of claiming more).
 * Must never: settle part of a batch, or let a replayed poll claim anything.
 */
import type { components as Cap } from "@commonly/cap-spec/types/cap";
import type { ClaimInput, DeliveredEvent } from "../store/contract.js";
import type { AgentCaller, ServiceDeps } from "./deps.js";
import type { EventsObserver } from "./events-observer.js";
/**
 * The spec's ReleaseRequest, with `delaySeconds` optional as it is on the wire: its default (0) is not
 * filled by the body validator, while the generated type (openapi-typescript's defaultNonNullable, kept
 * for the SDK's public types) calls it required.
 */
export type ReleaseBody = Omit<Cap["schemas"]["ReleaseRequest"], "delaySeconds"> & Partial<Pick<Cap["schemas"]["ReleaseRequest"], "delaySeconds">>;
export type ReleaseAnswer = {
    status: "pending";
    availableAt: number;
} | {
    status: "failed";
};
export type BatchAckItem = Cap["schemas"]["BatchAckItem"];
export type BatchAckResult = {
    id: string;
    ok: true;
} | {
    id: string;
    ok: false;
    code: "event_not_found";
};
/**
 * Claim for a poll named by `pollId`, in one transaction: while deliveries claimed under it are still
 * held, answer exactly those (same attempts, current lease); otherwise claim afresh and tag the claim.
 */
export declare function claimUnderPollId({ store }: ServiceDeps, input: ClaimInput, pollId: string, observer: EventsObserver): Promise<DeliveredEvent[]>;
export declare function deliveryVerbs({ store, config, clock }: ServiceDeps, observer: EventsObserver): {
    release(caller: AgentCaller, eventId: string, body: ReleaseBody): Promise<ReleaseAnswer>;
    ackMany(caller: AgentCaller, acks: BatchAckItem[]): Promise<BatchAckResult[]>;
};
