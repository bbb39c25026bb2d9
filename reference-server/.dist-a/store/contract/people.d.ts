/** Store operations for humans: users, their API tokens, pods and members (semantics: ../README.md). */
import type { MemberRecord, PodRecord, UserRecord, UserTokenRecord } from "../records.js";
export interface PeopleStore {
    insertUser(user: UserRecord): Promise<void>;
    getUser(id: string): Promise<UserRecord | null>;
    /** Non-deleted users with this exact name, oldest first. */
    findUsersByName(name: string): Promise<UserRecord[]>;
    listUsers(): Promise<UserRecord[]>;
    /** Sets deletedAt; false when the user does not exist or was already deleted. */
    markUserDeleted(id: string, now: number): Promise<boolean>;
    insertUserToken(token: UserTokenRecord): Promise<void>;
    findUserTokenByHash(hash: string): Promise<{
        token: UserTokenRecord;
        user: UserRecord;
    } | null>;
    /** Revokes every unrevoked API token of the user; returns how many. */
    revokeUserTokensOfUser(userId: string, now: number): Promise<number>;
    insertPod(pod: PodRecord): Promise<void>;
    getPod(id: string): Promise<PodRecord | null>;
    findPodsByName(name: string): Promise<PodRecord[]>;
    /** All pods (userId absent) or the pods the user is a member of, oldest first. */
    listPods(filter?: {
        userId?: string;
    }): Promise<PodRecord[]>;
    /** Insert or replace the membership (role update). */
    putMember(member: MemberRecord): Promise<void>;
    getMember(podId: string, userId: string): Promise<MemberRecord | null>;
    listMembers(podId: string): Promise<MemberRecord[]>;
    removeMember(podId: string, userId: string): Promise<boolean>;
}
