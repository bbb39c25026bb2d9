import type { UserRecord } from "../store/contract.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { TokensService } from "./tokens.js";
export declare function wireUser(u: UserRecord): {
    deletedAt?: string | undefined;
    id: string;
    name: string;
    isAdmin: boolean;
    createdAt: string;
};
export declare function createUsersService({ store, clock }: ServiceDeps, tokens: TokensService): {
    createUser: (input: {
        name: string;
        isAdmin?: boolean;
        tokenLabel?: string;
    }) => Promise<{
        user: UserRecord;
        token: string;
    }>;
    create(caller: UserCaller, input: {
        name: string;
        isAdmin?: boolean;
    }): Promise<{
        user: UserRecord;
        token: string;
    }>;
    issueToken(userId: string, label?: string | null): Promise<{
        token: string;
        record: import("../store/records.js").UserTokenRecord;
    }>;
    /** The caller's own record (the token that authenticated it proves it is live). */
    me(caller: UserCaller): Promise<UserRecord>;
    list(caller: UserCaller): Promise<UserRecord[]>;
    remove(caller: UserCaller, userId: string): Promise<{
        revokedUserTokens: number;
        revokedRuntimeTokens: number;
    }>;
};
export type UsersService = ReturnType<typeof createUsersService>;
