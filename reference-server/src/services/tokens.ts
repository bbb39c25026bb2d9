/**
 * Tokens: authenticating runtime tokens (CAP) and user API tokens (admin surface), and issuing both.
 * A token is accepted only if well-formed, known by its SHA-256, not revoked, its installation still
 * active and its issuing human not deleted (CAP-AUTH-2, CAP-AUTH-8). Must never store or log a raw token.
 */
import { fail } from "../errors/registry.js";
import { newId, newRuntimeToken, newUserToken, RUNTIME_TOKEN, sha256Hex, USER_TOKEN } from "../secrets.js";
import type {
  InstallationRecord,
  RuntimeTokenAuth,
  RuntimeTokenRecord,
  StoreOps,
  UserTokenRecord,
} from "../store/contract.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
import { createTokenCache } from "./token-cache.js";
import { createTokenTouches } from "./token-touches.js";

/**
 * lastUsedAt is refreshed at most this often per token, and written in batches (token-touches.ts), so
 * authentication stays a read on the hot path.
 */
const TOUCH_INTERVAL_MS = 60_000;

/** The bearer value of an Authorization header; throws auth_required for a missing header or other scheme. */
export function bearerValue(authorization: string | undefined): string {
  if (authorization === undefined || authorization === "") fail("auth_required");
  const space = authorization.indexOf(" ");
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  if (scheme.toLowerCase() !== "bearer") fail("auth_required");
  return space < 0 ? "" : authorization.slice(space + 1).trim();
}

export interface IssuedRuntimeToken {
  token: string;
  record: RuntimeTokenRecord;
}

export function createTokensService({ store, clock }: ServiceDeps, options: { cache?: boolean } = {}) {
  // Look-ups are cached; revocation, uninstall and user deletion drop the cache on every replica.
  const cache = createTokenCache(store, options.cache ?? true);
  const touches = createTokenTouches(store);

  const agentCaller = (auth: RuntimeTokenAuth | null): AgentCaller => {
    if (!auth) fail("token_unknown");
    const { token, identity, installation, issuer } = auth;
    if (token.revokedAt !== null || installation.status !== "active" || !issuer || issuer.deletedAt !== null)
      fail("token_revoked");
    const now = clock.now();
    if (token.lastUsedAt === null || now - token.lastUsedAt > TOUCH_INTERVAL_MS) {
      touches.touch(token.id, now);
      token.lastUsedAt = now; // the cached copy too, so the next request does not touch again
    }
    return {
      kind: "agent",
      agentId: identity.id,
      agentName: identity.agentName,
      instanceId: identity.instanceId,
      tokenId: token.id,
      installationId: installation.id,
    };
  };

  const runtimeTokenHash = (authorization?: string): string => {
    const value = bearerValue(authorization);
    if (!RUNTIME_TOKEN.test(value)) fail("token_malformed");
    return sha256Hex(value);
  };
  const agentByHash = (hash: string): AgentCaller | Promise<AgentCaller> => {
    const cached = cache.peek(hash);
    return cached ? agentCaller(cached) : cache.lookup(hash).then(agentCaller);
  };

  return {
    /** The token cache (size for tests); close() stops it when the kernel shuts down. */
    cache,
    /** lastUsedAt refreshes waiting to be written; the kernel flushes them before its store closes. */
    touches,

    /**
     * The caller a runtime token stands for. Answers at once, without a promise, when the token's look-up
     * is cached (this runs on every CAP request); throws or rejects with the token's error code.
     */
    authenticateAgent(authorization?: string): AgentCaller | Promise<AgentCaller> {
      return agentByHash(runtimeTokenHash(authorization));
    },
    /** The SHA-256 (hex) a runtime token is known by; throws auth_required or token_malformed. */
    runtimeTokenHash,
    /** authenticateAgent for a value runtimeTokenHash already hashed (a connection hashes its token once). */
    agentByHash,

    async authenticateUser(authorization?: string): Promise<UserCaller> {
      const value = bearerValue(authorization);
      if (!USER_TOKEN.test(value)) fail("token_malformed");
      const found = await store.findUserTokenByHash(sha256Hex(value));
      if (!found) fail("token_unknown");
      if (found.token.revokedAt !== null || found.user.deletedAt !== null) fail("token_revoked");
      return {
        kind: "human",
        userId: found.user.id,
        name: found.user.name,
        isAdmin: found.user.isAdmin,
        tokenId: found.token.id,
      };
    },

    /** Issue a runtime token through an installation, on behalf of the human `issuedBy`. */
    async issueRuntimeToken(
      tx: StoreOps,
      installation: InstallationRecord,
      issuedBy: string,
      label: string | null = null,
    ): Promise<IssuedRuntimeToken> {
      const token = newRuntimeToken();
      const record: RuntimeTokenRecord = {
        id: newId("rtk"),
        hash: sha256Hex(token),
        agentId: installation.agentId,
        installationId: installation.id,
        podId: installation.podId,
        issuedBy,
        label,
        createdAt: clock.now(),
        lastUsedAt: null,
        revokedAt: null,
      };
      await tx.insertRuntimeToken(record);
      return { token, record };
    },

    async issueUserToken(tx: StoreOps, userId: string, label: string | null = null) {
      const token = newUserToken();
      const record: UserTokenRecord = {
        id: newId("utk"),
        userId,
        hash: sha256Hex(token),
        label,
        createdAt: clock.now(),
        revokedAt: null,
      };
      await tx.insertUserToken(record);
      return { token, record };
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
