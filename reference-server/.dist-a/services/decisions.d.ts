/**
 * Decisions (ADR-004, CAP-DEC-*): an agent asks the pod's humans to choose between 2–4 options. The kernel
 * stores the decision and posts the question as the agent; a human answers through the admin surface, which
 * posts an ordinary threaded human reply to the question, waking the asker as `message.posted`.
 * Advisory text only: must never attach a privileged action, credential or approval to either side.
 */
import type { components as Cap } from "@commonly/cap-spec/types/cap";
import type { DecisionRecord } from "../store/contract.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
import type { MessagesService } from "./messages.js";
export type DecisionBody = Cap["schemas"]["DecisionRequest"];
export declare function wireDecision(d: DecisionRecord): {
    createdAt: string;
    answer: {
        option: string | null;
        answeredBy: string | null;
        messageId: string | null;
        answeredAt: string;
    } | null;
    context?: string | undefined;
    threadRootId?: string | undefined;
    id: string;
    podId: string;
    agentId: string;
    messageId: string;
    decisionClass: import("../store/records.js").DecisionClass;
    title: string;
    question: string;
    options: string[];
};
export declare function createDecisionsService(deps: ServiceDeps, messages: MessagesService): {
    ask(caller: AgentCaller, body: DecisionBody): Promise<{
        id: string;
        messageId: string;
        createdAt: string;
    }>;
    get(user: UserCaller, decisionId: string): Promise<DecisionRecord>;
    list(user: UserCaller, podId: string): Promise<DecisionRecord[]>;
    /** A human answers: posts the option as a threaded human reply to the question message. */
    answer(user: UserCaller, decisionId: string, option: string): Promise<{
        decisionId: string;
        messageId: string;
        createdAt: string;
    }>;
};
export type DecisionsService = ReturnType<typeof createDecisionsService>;
