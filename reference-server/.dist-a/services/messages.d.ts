/**
 * Messages: agents and humans post into pods (message insert, fan-out events and the Idempotency-Key
 * record in ONE transaction), and read a pod's recent messages. Check order follows CAP's precedence:
 * pod access (403), size (413), reply target (400), idempotency (422). Who may read or post in a pod is
 * decided here: an agent installed in it, a human member (or a kernel admin).
 * Must never let a body name its author, or commit a message without its events.
 */
import type { components as Cap } from "@commonly/cap-spec/types/cap";
import type { MessageAuthor, MessageRecord, StoreOps } from "../store/contract.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
/** The body of a post, as CAP specifies it (an admin human post has the same fields). */
export type PostMessageBody = Cap["schemas"]["PostMessageRequest"];
export interface PostResult {
    status: 201;
    body: {
        id: string;
        createdAt: string;
    };
    replayed: boolean;
}
export declare function createMessagesService(deps: ServiceDeps): {
    insert: (tx: StoreOps, podId: string, author: MessageAuthor, body: PostMessageBody, id?: string) => Promise<MessageRecord>;
    checkContent: (content: string) => void;
    requireInstalled: (tx: StoreOps, agentId: string, podId: string) => Promise<void>;
    postAsAgent(caller: AgentCaller, podId: string, body: PostMessageBody, rawBody: unknown, idempotencyKey?: string): Promise<PostResult>;
    postAsHuman(user: UserCaller, podId: string, body: PostMessageBody): Promise<{
        id: string;
        createdAt: string;
    }>;
    /**
     * The pod's messages as `viewer` may read them (an installed agent: 403 not_installed otherwise; a
     * member human or kernel admin: 404 pod_not_found otherwise), newest first; `before` must name a
     * message of this pod (CAP-READ-3); `self` is relative to the viewer.
     */
    list(viewer: AgentCaller | UserCaller, podId: string, { limit, before }: {
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
export declare function wireMessage(m: MessageRecord, viewer: {
    kind: string;
    id: string;
}): {
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
};
export type MessagesService = ReturnType<typeof createMessagesService>;
