import type { KernelApp } from "../http/app.js";
import { type AdminApi, type AdminClient } from "./admin.js";
import type { Spawned } from "./process.js";
export interface KernelAgent {
    name: string;
    instanceId: string;
    podId: string;
    token: string;
    tokenId: string;
}
export interface QueuedEvent {
    id: string;
    type: string;
    state: string;
    attempts: number;
    payload: Record<string, unknown>;
    leaseExpiresAt: string | null;
    ackedAt: string | null;
    availableAt?: string | null;
    releaseReason?: string | null;
}
export interface PodMessage {
    id: string;
    content: string;
    replyToMessageId?: string;
    author: {
        id: string;
        name: string;
        kind: string;
    };
}
export interface TestKernel {
    url: string;
    db: string;
    podId: string;
    human: {
        id: string;
        name: string;
        token: string;
    };
    agents: Record<string, KernelAgent>;
    /** The admin API as the admin human, typed by the spec (openapi-fetch). */
    api: AdminApi;
    /** Untyped JSON on any path as the admin human (`admin.get(`/api/pods/${id}`)`). */
    admin: AdminClient;
    /** The process's output so far (stdout and stderr); "" in-process. */
    output(): string;
    /** The child process (undefined in-process). */
    process: Spawned | undefined;
    /** The app (undefined for a process). */
    app: KernelApp | undefined;
    /** Post into the pod as the human; returns the message id. */
    say(content: string): Promise<string>;
    /** The pod's messages, newest first. */
    messages(): Promise<PodMessage[]>;
    /** Waits until a message by `agent` replying to `messageId` is in the pod. */
    replyTo(messageId: string, agent: string, timeoutMs?: number): Promise<PodMessage>;
    /** The agent's events in the pod, from the operator queue view (newest first). */
    queue(agent: string): Promise<QueuedEvent[]>;
    state(agent: string, eventId: string): Promise<QueuedEvent | undefined>;
    /** Inject an event for `agent` in the pod (operator route); returns its id. */
    emit(agent: string, type: string, payload?: Record<string, unknown>): Promise<string>;
    tokens(agent: string): Promise<Array<{
        id: string;
        lastUsedAt: string | null;
        revokedAt: string | null;
    }>>;
    /** Revokes a runtime token of `agent` (default the one provisioned). */
    revokeToken(agent: string, tokenId?: string): Promise<void>;
    /** A CAP call with an agent's runtime token; never throws on a status. */
    cap<T = unknown>(token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{
        status: number;
        body: T;
    }>;
    /** Stages a store outage on an SQLite file: another connection holds the write lock until called back. */
    lockStore(): () => void;
    /** An outage: kill the process (default SIGKILL) and wait for it to exit. */
    kill(signal?: NodeJS.Signals): Promise<void>;
    /** Serve again on the same port and database; resolves when /readyz answers 200. */
    restart(): Promise<void>;
    /** Shut down (SIGTERM / app close) and remove the temporary directory. */
    stop(): Promise<void>;
}
export interface Provisioned {
    users: {
        id: string;
        name: string;
        token: string;
    }[];
    pods: {
        id: string;
        name: string;
    }[];
    agents: KernelAgent[];
}
export declare function testKernel(url: () => string, db: string, made: Provisioned, life: {
    process: () => Spawned | undefined;
    app: KernelApp | undefined;
    kill: TestKernel["kill"];
    restart: TestKernel["restart"];
    stop: TestKernel["stop"];
}): TestKernel;
