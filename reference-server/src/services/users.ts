/**
 * Users (humans) and their API tokens. Deleting a user revokes every API token of theirs and every runtime
 * token they issued (brief §2.5, CAP-AUTH-8); the row is kept (deletedAt) for the audit trail.
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import type { UserRecord } from "../store/contract.js";
import { requireKernelAdmin } from "./access.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { TokensService } from "./tokens.js";

export function wireUser(u: UserRecord) {
  return {
    id: u.id,
    name: u.name,
    isAdmin: u.isAdmin,
    createdAt: iso(u.createdAt),
    ...(u.deletedAt !== null ? { deletedAt: iso(u.deletedAt) } : {}),
  };
}

export function createUsersService({ store, clock }: ServiceDeps, tokens: TokensService) {
  /** Creates a user and a first API token (shown once). No permission check: CLI and admin route use it. */
  async function createUser(input: { name: string; isAdmin?: boolean; tokenLabel?: string }) {
    return store.transaction(async (tx) => {
      const user: UserRecord = {
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

    async create(caller: UserCaller, input: { name: string; isAdmin?: boolean }) {
      requireKernelAdmin(caller);
      return createUser(input);
    },

    async issueToken(userId: string, label: string | null = null) {
      const user = await store.getUser(userId);
      if (!user || user.deletedAt !== null) fail("user_not_found");
      return store.transaction((tx) => tokens.issueUserToken(tx, userId, label));
    },

    /** The caller's own record (the token that authenticated it proves it is live). */
    async me(caller: UserCaller) {
      const user = await store.getUser(caller.userId);
      if (!user) fail("user_not_found");
      return user;
    },

    async list(caller: UserCaller) {
      requireKernelAdmin(caller);
      return store.listUsers();
    },

    async remove(caller: UserCaller, userId: string) {
      requireKernelAdmin(caller);
      return store.transaction(async (tx) => {
        const now = clock.now();
        if (!(await tx.markUserDeleted(userId, now))) fail("user_not_found");
        const userTokens = await tx.revokeUserTokensOfUser(userId, now);
        const runtimeTokens = await tx.revokeRuntimeTokensIssuedBy(userId, now);
        return { revokedUserTokens: userTokens, revokedRuntimeTokens: runtimeTokens };
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
