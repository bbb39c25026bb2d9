import { type Actor, type InstallationRecord, type RuntimeTokenRecord, type StoreOps } from "../store/contract.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { TokensService } from "./tokens.js";
export declare const AGENT_NAME: RegExp;
export interface InstallInput {
    agentName: string;
    podId: string;
    instanceId?: string;
    scopes?: string[];
    messagePosted?: boolean;
}
export declare function wireInstallation(i: InstallationRecord): {
    uninstalledAt?: string | undefined;
    uninstalledBy?: string | null | undefined;
    id: string;
    agentName: string;
    instanceId: string;
    podId: string;
    scopes: string[];
    messagePosted: boolean;
    installedBy: Actor;
    authorizedBy: string;
    status: import("../store/records.js").InstallationStatus;
    createdAt: string;
};
export declare function wireRuntimeToken(t: RuntimeTokenRecord): {
    id: string;
    label: string | null;
    installationId: string;
    issuedBy: string;
    createdAt: string;
    lastUsedAt: string | null;
    revokedAt: string | null;
};
export declare function createRegistryService({ store, clock }: ServiceDeps, tokens: TokensService): {
    installIn: (tx: StoreOps, input: InstallInput, installedBy: Actor | "self", authorizedBy: string) => Promise<InstallationRecord>;
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
    activeInstallation: (podId: string, agentName: string, instanceId?: string) => Promise<InstallationRecord>;
    findActiveInstallation: (podId: string, agentName: string, instanceId?: string) => Promise<InstallationRecord | null>;
    /** The published agent with this name, or null. */
    get: (name: string) => Promise<import("../store/records.js").RegistryAgentRecord | null>;
    publish: (user: UserCaller, manifest: Record<string, unknown> & {
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
    list: () => Promise<import("../store/records.js").RegistryAgentRecord[]>;
    install(user: UserCaller, input: InstallInput): Promise<InstallationRecord>;
    issueToken(user: UserCaller, podId: string, agentName: string, opts: {
        instanceId?: string;
        label?: string;
    }): Promise<{
        installation: InstallationRecord;
        token: string;
        record: RuntimeTokenRecord;
    }>;
    listTokens(user: UserCaller, podId: string, agentName: string, instanceId?: string): Promise<RuntimeTokenRecord[]>;
    revokeToken(user: UserCaller, podId: string, agentName: string, tokenId: string): Promise<void>;
    uninstall(user: UserCaller, podId: string, agentName: string, instanceId?: string): Promise<{
        revokedTokens: number;
        retiredEvents: number;
    }>;
};
export type RegistryService = ReturnType<typeof createRegistryService>;
