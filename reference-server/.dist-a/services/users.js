/**
 * Users (humans) and their API tokens. Deleting a user revokes every API token of theirs and every runtime
 * token they issued (brief §2.5, CAP-AUTH-8); the row is kept (deletedAt) for the audit trail.
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import { requireKernelAdmin } from "./access.js";
export function wireUser(u) {
    return {
        id: u.id,
        name: u.name,
        isAdmin: u.isAdmin,
        createdAt: iso(u.createdAt),
        ...(u.deletedAt !== null ? { deletedAt: iso(u.deletedAt) } : {}),
    };
}
export function createUsersService({ store, clock }, tokens) {
    /** Creates a user and a first API token (shown once). No permission check: CLI and admin route use it. */
    async function createUser(input) {
        return store.transaction(async (tx) => {
            const user = {
                id: newId("usr"),
                name: input.name,
                isAdmin: input.isAdmin ?? false,
                createdAt: clock.now(),
                deletedAt: null,
            };
            await tx.insertUser(user);
            const { token } = await tokens.issueUserToken(tx, user.id, input.tokenLabel ?? null);
            return { user, token };
        });
    }
    return {
        createUser,
        async create(caller, input) {
            requireKernelAdmin(caller);
            return createUser(input);
        },
        async issueToken(userId, label = null) {
            const user = await store.getUser(userId);
            if (!user || user.deletedAt !== null)
                fail("user_not_found");
            return store.transaction((tx) => tokens.issueUserToken(tx, userId, label));
        },
        /** The caller's own record (the token that authenticated it proves it is live). */
        async me(caller) {
            const user = await store.getUser(caller.userId);
            if (!user)
                fail("user_not_found");
            return user;
        },
        async list(caller) {
            requireKernelAdmin(caller);
            return store.listUsers();
        },
        async remove(caller, userId) {
            requireKernelAdmin(caller);
            return store.transaction(async (tx) => {
                const now = clock.now();
                if (!(await tx.markUserDeleted(userId, now)))
                    fail("user_not_found");
                const userTokens = await tx.revokeUserTokensOfUser(userId, now);
                const runtimeTokens = await tx.revokeRuntimeTokensIssuedBy(userId, now);
                return { revokedUserTokens: userTokens, revokedRuntimeTokens: runtimeTokens };
            });
        },
    };
}
//# sourceMappingURL=users.js.map