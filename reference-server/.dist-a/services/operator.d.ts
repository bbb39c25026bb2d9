/**
 * Operator tools: inject any event for an installed agent (driver authors fire `task.assigned` at their
 * driver offline), list and requeue dead letters, and the per-pod queue view of the dev console.
 * Must never bypass the queue: injected events are ordinary pending events, delivered by lease like any other.
 */
import type { components as Admin } from "@commonly/cap-spec/types/admin";
import type { EventRecord } from "../store/contract.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { RegistryService } from "./registry.js";
export type EmitInput = Admin["schemas"]["EmitEventRequest"];
/** `now` given: a leased event whose lease has ended shows as pending (it is ready again). */
export declare function wireQueuedEvent(e: EventRecord, who?: {
    agentName: string;
    instanceId: string;
}, now?: number): {
    state: import("../store/records.js").EventState;
    attempts: number;
    payload: unknown;
    createdAt: string;
    leaseExpiresAt: string | null;
    ackedAt: string | null;
    failedAt: string | null;
    failReason: string | null;
    availableAt: string | null;
    releaseReason: string | null;
    agentName?: string | undefined;
    instanceId?: string | undefined;
    id: string;
    type: string;
    podId: string;
};
export declare function createOperatorService(deps: ServiceDeps, registry: RegistryService): {
    emitDirect: (input: EmitInput) => Promise<{
        id: string;
        type: string;
        podId: string;
        agentName: string;
        instanceId: string;
        createdAt: string;
    }>;
    deadLettersDirect: (filter: {
        podId?: string;
        agentName?: string;
        instanceId?: string;
        limit?: number;
    }) => Promise<{
        state: import("../store/records.js").EventState;
        attempts: number;
        payload: unknown;
        createdAt: string;
        leaseExpiresAt: string | null;
        ackedAt: string | null;
        failedAt: string | null;
        failReason: string | null;
        availableAt: string | null;
        releaseReason: string | null;
        agentName?: string | undefined;
        instanceId?: string | undefined;
        id: string;
        type: string;
        podId: string;
    }[]>;
    requeueDirect: (eventId: string) => Promise<{
        state: import("../store/records.js").EventState;
        attempts: number;
        payload: unknown;
        createdAt: string;
        leaseExpiresAt: string | null;
        ackedAt: string | null;
        failedAt: string | null;
        failReason: string | null;
        availableAt: string | null;
        releaseReason: string | null;
        agentName?: string | undefined;
        instanceId?: string | undefined;
        id: string;
        type: string;
        podId: string;
    }>;
    /** The pod with this id, else the pods with this name. */
    findPods(ref: string): Promise<import("../store/records.js").PodRecord[]>;
    /** Users not deleted, oldest first. */
    liveUsers: () => Promise<import("../store/records.js").UserRecord[]>;
    /** Revokes a runtime token by id; false when there is no live token with it. */
    revokeTokenDirect: (tokenId: string) => Promise<boolean>;
    /** One event as stored. */
    eventDirect: (eventId: string) => Promise<EventRecord | null>;
    /** A pod's events as stored (all agents), newest first. */
    podEventsDirect: (podId: string, limit: number) => Promise<EventRecord[]>;
    emit(user: UserCaller, input: EmitInput): Promise<{
        id: string;
        type: string;
        podId: string;
        agentName: string;
        instanceId: string;
        createdAt: string;
    }>;
    deadLetters(user: UserCaller, filter: {
        podId?: string;
        agentName?: string;
        instanceId?: string;
        limit?: number;
    }): Promise<{
        state: import("../store/records.js").EventState;
        attempts: number;
        payload: unknown;
        createdAt: string;
        leaseExpiresAt: string | null;
        ackedAt: string | null;
        failedAt: string | null;
        failReason: string | null;
        availableAt: string | null;
        releaseReason: string | null;
        agentName?: string | undefined;
        instanceId?: string | undefined;
        id: string;
        type: string;
        podId: string;
    }[]>;
    requeue(user: UserCaller, eventId: string): Promise<{
        state: import("../store/records.js").EventState;
        attempts: number;
        payload: unknown;
        createdAt: string;
        leaseExpiresAt: string | null;
        ackedAt: string | null;
        failedAt: string | null;
        failReason: string | null;
        availableAt: string | null;
        releaseReason: string | null;
        agentName?: string | undefined;
        instanceId?: string | undefined;
        id: string;
        type: string;
        podId: string;
    }>;
    queue(user: UserCaller, podId: string, limit?: number): Promise<{
        podId: string;
        now: string;
        agents: {
            agentName: string;
            instanceId: string;
            events: {
                state: import("../store/records.js").EventState;
                attempts: number;
                payload: unknown;
                createdAt: string;
                leaseExpiresAt: string | null;
                ackedAt: string | null;
                failedAt: string | null;
                failReason: string | null;
                availableAt: string | null;
                releaseReason: string | null;
                agentName?: string | undefined;
                instanceId?: string | undefined;
                id: string;
                type: string;
                podId: string;
            }[];
        }[];
    }>;
};
export type OperatorService = ReturnType<typeof createOperatorService>;
