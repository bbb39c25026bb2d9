import type { DeliveredEvent } from "../store/contract.js";
import type { AgentCaller, ServiceDeps } from "./deps.js";
import { type EventsObserver } from "./events-observer.js";
import type { Cancellation, WakeHub } from "./wake-hub.js";
export interface PollInput {
    limit: number;
    waitSeconds: number;
    /** poll-replay: a retry with the same id answers the deliveries already made under it. */
    pollId?: string;
    /** The caller is gone: stop waiting and claim nothing more (an AbortSignal will do). */
    signal?: Cancellation;
}
export declare function createEventsService(deps: ServiceDeps, hub: WakeHub, observer?: EventsObserver): {
    release(caller: AgentCaller, eventId: string, body: import("./deliveries.js").ReleaseBody): Promise<import("./deliveries.js").ReleaseAnswer>;
    ackMany(caller: AgentCaller, acks: import("./deliveries.js").BatchAckItem[]): Promise<import("./deliveries.js").BatchAckResult[]>;
    leaseMs: number;
    poll(caller: AgentCaller, { limit, waitSeconds, pollId, signal }: PollInput): Promise<DeliveredEvent[]>;
    ack(caller: AgentCaller, eventId: string, result: unknown): Promise<void>;
    renew(caller: AgentCaller, eventId: string, attempts: number): Promise<number>;
};
export type EventsService = ReturnType<typeof createEventsService>;
