import type { InstallationRecord, RuntimeTokenRecord, StoreOps, UserTokenRecord } from "../store/contract.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
/** The bearer value of an Authorization header; throws auth_required for a missing header or other scheme. */
export declare function bearerValue(authorization: string | undefined): string;
export interface IssuedRuntimeToken {
    token: string;
    record: RuntimeTokenRecord;
}
export declare function createTokensService({ store, clock }: ServiceDeps): {
    /** The token cache (size for tests); close() stops it when the kernel shuts down. */
    cache: import("./token-cache.js").TokenCache;
    /** lastUsedAt refreshes waiting to be written; the kernel flushes them before its store closes. */
    touches: import("./token-touches.js").TokenTouches;
    /**
     * The caller a runtime token stands for. Answers at once, without a promise, when the token's look-up
     * is cached (this runs on every CAP request); throws or rejects with the token's error code.
     */
    authenticateAgent(authorization?: string): AgentCaller | Promise<AgentCaller>;
    /** The SHA-256 (hex) a runtime token is known by; throws auth_required or token_malformed. */
    runtimeTokenHash: (authorization?: string) => string;
    /** authenticateAgent for a value runtimeTokenHash already hashed (a connection hashes its token once). */
    agentByHash: (hash: string) => AgentCaller | Promise<AgentCaller>;
    authenticateUser(authorization?: string): Promise<UserCaller>;
    /** Issue a runtime token through an installation, on behalf of the human `issuedBy`. */
    issueRuntimeToken(tx: StoreOps, installation: InstallationRecord, issuedBy: string, label?: string | null): Promise<IssuedRuntimeToken>;
    issueUserToken(tx: StoreOps, userId: string, label?: string | null): Promise<{
        token: string;
        record: UserTokenRecord;
    }>;
};
export type TokensService = ReturnType<typeof createTokensService>;
