/**
 * The kernel without HTTP, and its composition root: every service wired to one store, config and clock.
 * The HTTP app and the CLI (provision, emit, tokens, dead-letters) both build on this, so the CLI acting on
 * the database directly follows exactly the rules the routes follow.
 * Must never hand out the store: callers get services (which hold the access rules), a read-only health
 * view and close(). Only this file, the services and the store itself import `store/` (a test holds that).
 */
import { type Clock } from "./clock.js";
import { type KernelConfig } from "./config.js";
import type { EventsObserver } from "./services/events-observer.js";
import { WakeHub } from "./services/wake-hub.js";
import type { Store } from "./store/contract.js";
/** The record shapes the services speak, for code outside the kernel that names them. */
export type { DeliveredEvent, EventRecord, PodRole, Store } from "./store/contract.js";
/** What a service throws when the store cannot be reached (the HTTP layer answers 503). */
export { StoreUnavailableError } from "./store/contract.js";
export interface KernelOptions {
    store: Store;
    config?: Partial<KernelConfig>;
    clock?: Clock;
    observer?: EventsObserver;
}
export declare function createKernel(options: KernelOptions): {
    config: KernelConfig;
    clock: Clock;
    hub: WakeHub;
    tokens: {
        cache: import("./services/token-cache.js").TokenCache;
        touches: import("./services/token-touches.js").TokenTouches;
        authenticateAgent(authorization?: string): import("./services/deps.js").AgentCaller | Promise<import("./services/deps.js").AgentCaller>;
        runtimeTokenHash: (authorization?: string) => string;
        agentByHash: (hash: string) => import("./services/deps.js").AgentCaller | Promise<import("./services/deps.js").AgentCaller>;
        authenticateUser(authorization?: string): Promise<import("./services/deps.js").UserCaller>;
        issueRuntimeToken(tx: import("./store/contract.js").StoreOps, installation: import("./store/records.js").InstallationRecord, issuedBy: string, label?: string | null): Promise<import("./services/tokens.js").IssuedRuntimeToken>;
        issueUserToken(tx: import("./store/contract.js").StoreOps, userId: string, label?: string | null): Promise<{
            token: string;
            record: import("./store/records.js").UserTokenRecord;
        }>;
    };
    messages: {
        insert: (tx: import("./store/contract.js").StoreOps, podId: string, author: import("./store/records.js").MessageAuthor, body: import("./services/messages.js").PostMessageBody, id?: string) => Promise<import("./store/records.js").MessageRecord>;
        checkContent: (content: string) => void;
        requireInstalled: (tx: import("./store/contract.js").StoreOps, agentId: string, podId: string) => Promise<void>;
        postAsAgent(caller: import("./services/deps.js").AgentCaller, podId: string, body: import("./services/messages.js").PostMessageBody, rawBody: unknown, idempotencyKey?: string): Promise<import("./services/messages.js").PostResult>;
        postAsHuman(user: import("./services/deps.js").UserCaller, podId: string, body: import("./services/messages.js").PostMessageBody): Promise<{
            id: string;
            createdAt: string;
        }>;
        list(viewer: import("./services/deps.js").AgentCaller | import("./services/deps.js").UserCaller, podId: string, { limit, before }: {
            limit: number;
            before?: string | undefined;
        }): Promise<{
            createdAt: string;
            self: boolean;
            isBot: boolean;
            metadata?: Record<string, unknown> | undefined;
            replyToMessageId?: string | undefined;
            id: string;
            podId: string;
            content: string;
            author: {
                id: string;
                kind: "human" | "agent";
                name: string;
            };
        }[]>;
    };
    registry: {
        installIn: (tx: import("./store/contract.js").StoreOps, input: import("./services/registry.js").InstallInput, installedBy: import("./store/records.js").Actor | "self", authorizedBy: string) => Promise<import("./store/records.js").InstallationRecord>;
        publishAs: (userId: string, isAdmin: boolean, manifest: Record<string, unknown> & {
            name: string;
        }) => Promise<{
            name: string;
            manifest: Record<string, unknown> & {
                name: string;
            };
            publishedBy: string;
            createdAt: number;
            updatedAt: number;
        }>;
        activeInstallation: (podId: string, agentName: string, instanceId?: string) => Promise<import("./store/records.js").InstallationRecord>;
        findActiveInstallation: (podId: string, agentName: string, instanceId?: string) => Promise<import("./store/records.js").InstallationRecord | null>;
        get: (name: string) => Promise<import("./store/records.js").RegistryAgentRecord | null>;
        publish: (user: import("./services/deps.js").UserCaller, manifest: Record<string, unknown> & {
            name: string;
        }) => Promise<{
            name: string;
            manifest: Record<string, unknown> & {
                name: string;
            };
            publishedBy: string;
            createdAt: number;
            updatedAt: number;
        }>;
        list: () => Promise<import("./store/records.js").RegistryAgentRecord[]>;
        install(user: import("./services/deps.js").UserCaller, input: import("./services/registry.js").InstallInput): Promise<import("./store/records.js").InstallationRecord>;
        issueToken(user: import("./services/deps.js").UserCaller, podId: string, agentName: string, opts: {
            instanceId?: string;
            label?: string;
        }): Promise<{
            installation: import("./store/records.js").InstallationRecord;
            token: string;
            record: import("./store/records.js").RuntimeTokenRecord;
        }>;
        listTokens(user: import("./services/deps.js").UserCaller, podId: string, agentName: string, instanceId?: string): Promise<import("./store/records.js").RuntimeTokenRecord[]>;
        revokeToken(user: import("./services/deps.js").UserCaller, podId: string, agentName: string, tokenId: string): Promise<void>;
        uninstall(user: import("./services/deps.js").UserCaller, podId: string, agentName: string, instanceId?: string): Promise<{
            revokedTokens: number;
            retiredEvents: number;
        }>;
    };
    events: {
        release(caller: import("./services/deps.js").AgentCaller, eventId: string, body: import("./services/deliveries.js").ReleaseBody): Promise<import("./services/deliveries.js").ReleaseAnswer>;
        ackMany(caller: import("./services/deps.js").AgentCaller, acks: import("./services/deliveries.js").BatchAckItem[]): Promise<import("./services/deliveries.js").BatchAckResult[]>;
        leaseMs: number;
        poll(caller: import("./services/deps.js").AgentCaller, { limit, waitSeconds, pollId, signal }: import("./services/events.js").PollInput): Promise<import("./store/records.js").DeliveredEvent[]>;
        ack(caller: import("./services/deps.js").AgentCaller, eventId: string, result: unknown): Promise<void>;
        renew(caller: import("./services/deps.js").AgentCaller, eventId: string, attempts: number): Promise<number>;
    };
    memory: {
        get(caller: import("./services/deps.js").AgentCaller): Promise<{
            schemaVersion: 2;
            sourceRuntime?: string | undefined;
            content: string;
            sections: Record<string, unknown>;
        }>;
        put(caller: import("./services/deps.js").AgentCaller, body: import("./services/memory.js").PutMemoryBody): Promise<void>;
        sync(caller: import("./services/deps.js").AgentCaller, body: import("./services/memory.js").SyncMemoryBody): Promise<{
            deduped: boolean;
        }>;
    };
    decisions: {
        ask(caller: import("./services/deps.js").AgentCaller, body: import("./services/decisions.js").DecisionBody): Promise<{
            id: string;
            messageId: string;
            createdAt: string;
        }>;
        get(user: import("./services/deps.js").UserCaller, decisionId: string): Promise<import("./store/records.js").DecisionRecord>;
        list(user: import("./services/deps.js").UserCaller, podId: string): Promise<import("./store/records.js").DecisionRecord[]>;
        answer(user: import("./services/deps.js").UserCaller, decisionId: string, option: string): Promise<{
            decisionId: string;
            messageId: string;
            createdAt: string;
        }>;
    };
    users: {
        createUser: (input: {
            name: string;
            isAdmin?: boolean;
            tokenLabel?: string;
        }) => Promise<{
            user: import("./store/records.js").UserRecord;
            token: string;
        }>;
        create(caller: import("./services/deps.js").UserCaller, input: {
            name: string;
            isAdmin?: boolean;
        }): Promise<{
            user: import("./store/records.js").UserRecord;
            token: string;
        }>;
        issueToken(userId: string, label?: string | null): Promise<{
            token: string;
            record: import("./store/records.js").UserTokenRecord;
        }>;
        me(caller: import("./services/deps.js").UserCaller): Promise<import("./store/records.js").UserRecord>;
        list(caller: import("./services/deps.js").UserCaller): Promise<import("./store/records.js").UserRecord[]>;
        remove(caller: import("./services/deps.js").UserCaller, userId: string): Promise<{
            revokedUserTokens: number;
            revokedRuntimeTokens: number;
        }>;
    };
    pods: {
        createPod: (creatorId: string, name: string) => Promise<import("./store/records.js").PodRecord>;
        list(user: import("./services/deps.js").UserCaller): Promise<import("./store/records.js").PodRecord[]>;
        get(user: import("./services/deps.js").UserCaller, podId: string): Promise<{
            pod: import("./store/records.js").PodRecord;
            members: import("./store/records.js").MemberRecord[];
            installations: import("./store/records.js").InstallationRecord[];
        }>;
        addMember(user: import("./services/deps.js").UserCaller, podId: string, input: {
            userId: string;
            role?: import("./store/records.js").PodRole;
        }): Promise<import("./store/records.js").MemberRecord>;
        removeMember(user: import("./services/deps.js").UserCaller, podId: string, userId: string): Promise<void>;
    };
    joins: {
        create(user: import("./services/deps.js").UserCaller, podId: string, input: {
            agentName?: string;
            expiresInSeconds?: number;
            scopes?: string[];
        }): Promise<{
            code: string;
            record: import("./store/records.js").JoinCodeRecord;
        }>;
        list(user: import("./services/deps.js").UserCaller, podId: string): Promise<import("./store/records.js").JoinCodeRecord[]>;
        redeem(input: {
            code: string;
            agentName?: string;
            instanceId?: string;
        }): Promise<{
            token: string;
            tokenId: string;
            installation: import("./store/records.js").InstallationRecord;
        }>;
    };
    operator: {
        emitDirect: (input: import("./services/operator.js").EmitInput) => Promise<{
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
            state: import("./store/records.js").EventState;
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
            state: import("./store/records.js").EventState;
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
        findPods(ref: string): Promise<import("./store/records.js").PodRecord[]>;
        liveUsers: () => Promise<import("./store/records.js").UserRecord[]>;
        revokeTokenDirect: (tokenId: string) => Promise<boolean>;
        eventDirect: (eventId: string) => Promise<import("./store/records.js").EventRecord | null>;
        podEventsDirect: (podId: string, limit: number) => Promise<import("./store/records.js").EventRecord[]>;
        emit(user: import("./services/deps.js").UserCaller, input: import("./services/operator.js").EmitInput): Promise<{
            id: string;
            type: string;
            podId: string;
            agentName: string;
            instanceId: string;
            createdAt: string;
        }>;
        deadLetters(user: import("./services/deps.js").UserCaller, filter: {
            podId?: string;
            agentName?: string;
            instanceId?: string;
            limit?: number;
        }): Promise<{
            state: import("./store/records.js").EventState;
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
        requeue(user: import("./services/deps.js").UserCaller, eventId: string): Promise<{
            state: import("./store/records.js").EventState;
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
        queue(user: import("./services/deps.js").UserCaller, podId: string, limit?: number): Promise<{
            podId: string;
            now: string;
            agents: {
                agentName: string;
                instanceId: string;
                events: {
                    state: import("./store/records.js").EventState;
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
    /** Read-only: which store, whether it answers (readiness), its row counts per state (metrics). */
    health: {
        storeKind: import("./store/contract.js").StoreKind;
        ping: () => Promise<void>;
        queueStats: () => Promise<import("./store/records.js").QueueStats>;
    };
    /** Writes what is still buffered and closes the store (after the HTTP app, if any, has closed). */
    close: () => Promise<void>;
};
export type Kernel = ReturnType<typeof createKernel>;
/** Opens the store a `--db` URL names (`sqlite:…`, `postgres://…`) and builds the kernel on it. */
export declare function openKernel(options: Omit<KernelOptions, "store"> & {
    db: string;
}): Promise<Kernel>;
