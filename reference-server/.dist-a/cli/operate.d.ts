import { type CommonFlags } from "./settings.js";
export interface EmitFlags extends CommonFlags {
    agent: string;
    instance?: string;
    pod: string;
    type: string;
    payload?: string;
}
export declare const emitCommand: (f: EmitFlags) => Promise<void>;
export interface DeadLetterFlags extends CommonFlags {
    pod?: string;
    agent?: string;
    instance?: string;
    limit?: string;
}
export declare const deadLettersListCommand: (f: DeadLetterFlags) => Promise<void>;
export declare const deadLettersRequeueCommand: (eventId: string, f: CommonFlags) => Promise<void>;
export interface IssueFlags extends CommonFlags {
    pod?: string;
    agent?: string;
    instance?: string;
    user?: string;
    issuedBy?: string;
    label?: string;
}
export declare const tokensIssueCommand: (f: IssueFlags) => Promise<void>;
export declare const tokensRevokeCommand: (tokenId: string, f: CommonFlags) => Promise<void>;
