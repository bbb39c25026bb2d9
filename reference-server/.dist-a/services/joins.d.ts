import type { JoinCodeRecord } from "../store/contract.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { RegistryService } from "./registry.js";
import type { TokensService } from "./tokens.js";
export declare const DEFAULT_JOIN_TTL_SECONDS = 3600;
export declare function wireJoinCode(c: JoinCodeRecord): {
    id: string;
    podId: string;
    agentName: string | null;
    scopes: string[];
    createdBy: string;
    createdAt: string;
    expiresAt: string;
    usedAt: string | null;
    usedByInstallationId: string | null;
};
export declare function createJoinsService({ store, clock }: ServiceDeps, registry: RegistryService, tokens: TokensService): {
    create(user: UserCaller, podId: string, input: {
        agentName?: string;
        expiresInSeconds?: number;
        scopes?: string[];
    }): Promise<{
        code: string;
        record: JoinCodeRecord;
    }>;
    list(user: UserCaller, podId: string): Promise<JoinCodeRecord[]>;
    redeem(input: {
        code: string;
        agentName?: string;
        instanceId?: string;
    }): Promise<{
        token: string;
        tokenId: string;
        installation: import("../store/records.js").InstallationRecord;
    }>;
};
export type JoinsService = ReturnType<typeof createJoinsService>;
