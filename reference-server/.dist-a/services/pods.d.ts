import type { MemberRecord, PodRecord, PodRole } from "../store/contract.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
export declare const wirePod: (p: PodRecord) => {
    id: string;
    name: string;
    createdBy: string;
    createdAt: string;
};
export declare const wireMember: (m: MemberRecord) => {
    userId: string;
    role: PodRole;
    addedAt: string;
};
export declare function createPodsService({ store, clock }: ServiceDeps): {
    createPod: (creatorId: string, name: string) => Promise<PodRecord>;
    list(user: UserCaller): Promise<PodRecord[]>;
    get(user: UserCaller, podId: string): Promise<{
        pod: PodRecord;
        members: MemberRecord[];
        installations: import("../store/records.js").InstallationRecord[];
    }>;
    addMember(user: UserCaller, podId: string, input: {
        userId: string;
        role?: PodRole;
    }): Promise<MemberRecord>;
    removeMember(user: UserCaller, podId: string, userId: string): Promise<void>;
};
export type PodsService = ReturnType<typeof createPodsService>;
