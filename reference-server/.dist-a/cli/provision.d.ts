import { type Kernel } from "../kernel.js";
import { type CommonFlags } from "./settings.js";
export interface ProvisionSpec {
    users?: {
        name: string;
        admin?: boolean;
    }[];
    pods?: {
        name: string;
        owner?: string;
        members?: string[];
    }[];
    agents?: {
        name: string;
        instanceId?: string;
        pods: string[];
        installedBy?: string;
        messagePosted?: boolean;
    }[];
}
export interface ProvisionFlags extends CommonFlags {
    file?: string;
    admin?: string;
    pod?: string[];
    agent?: string[];
    forConformance?: boolean;
    baseUrl?: string;
}
export declare function specFromFlags(flags: ProvisionFlags): ProvisionSpec;
export declare function provision(kernel: Kernel, spec: ProvisionSpec): Promise<{
    users: {
        id: string;
        name: string;
        isAdmin: boolean;
        token: string;
    }[];
    pods: {
        id: string;
        name: string;
    }[];
    agents: {
        name: string;
        instanceId: string;
        podId: string;
        pod: string;
        token: string;
        tokenId: string;
    }[];
}>;
/** The conformance fixture: two agents sharing pod "shared", a third only in pod "other", a human. */
export declare function provisionConformance(kernel: Kernel, baseUrl: string): Promise<{
    baseUrl: string;
    leaseSeconds: number;
    maxAttempts: number;
    agents: {
        name: string;
        instanceId: string;
        token: string;
        podId: string;
    }[];
    pods: {
        shared: string;
        other: string;
    };
    human: {
        token: string;
        id: string;
        name: string;
    };
    revokedToken: string;
}>;
export declare function provisionCommand(flags: ProvisionFlags): Promise<void>;
