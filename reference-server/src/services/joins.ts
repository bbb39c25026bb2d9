/**
 * Self-serve joins: a pod admin creates a one-time, expiring join code (shown once, stored as SHA-256);
 * redeeming it — unauthenticated, the code is the credential — installs the agent (installedBy: the agent
 * itself; authorizedBy: the human who created the code) and returns a runtime token once. Used and expired
 * codes get distinct 410s; unknown ones 404. A code never binds an identity its creator does not own, and
 * a code that names no agent never binds an existing identity (the redeemer would choose whose).
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { JOIN_CODE, newId, newJoinCode, sha256Hex } from "../secrets.js";
import type { JoinCodeRecord } from "../store/contract.js";
import { requirePodAdmin } from "./access.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { Binder, RegistryService } from "./registry.js";
import type { TokensService } from "./tokens.js";

export const DEFAULT_JOIN_TTL_SECONDS = 3600;

export function wireJoinCode(c: JoinCodeRecord) {
  return {
    id: c.id,
    podId: c.podId,
    agentName: c.agentName,
    scopes: c.scopes,
    createdBy: c.createdBy,
    createdAt: iso(c.createdAt),
    expiresAt: iso(c.expiresAt),
    usedAt: c.usedAt === null ? null : iso(c.usedAt),
    usedByInstallationId: c.usedByInstallationId,
  };
}

export function createJoinsService(
  { store, clock }: ServiceDeps,
  registry: RegistryService,
  tokens: TokensService,
) {
  return {
    async create(
      user: UserCaller,
      podId: string,
      input: { agentName?: string; expiresInSeconds?: number; scopes?: string[] },
    ) {
      await requirePodAdmin(store, user, podId);
      const code = newJoinCode();
      const now = clock.now();
      const rec: JoinCodeRecord = {
        id: newId("jc"),
        hash: sha256Hex(code),
        podId,
        agentName: input.agentName ?? null,
        scopes: input.scopes ?? [],
        createdBy: user.userId,
        createdAt: now,
        expiresAt: now + (input.expiresInSeconds ?? DEFAULT_JOIN_TTL_SECONDS) * 1000,
        usedAt: null,
        usedByInstallationId: null,
      };
      await store.insertJoinCode(rec);
      return { code, record: rec };
    },

    async list(user: UserCaller, podId: string) {
      await requirePodAdmin(store, user, podId);
      return store.listJoinCodes(podId);
    },

    async redeem(input: { code: string; agentName?: string; instanceId?: string }) {
      if (!JOIN_CODE.test(input.code)) fail("join_code_invalid");
      const rec = await store.findJoinCodeByHash(sha256Hex(input.code));
      if (!rec) fail("join_code_invalid");
      if (rec.usedAt !== null) fail("join_code_used");
      if (rec.expiresAt <= clock.now()) fail("join_code_expired");
      const agentName = rec.agentName ?? input.agentName;
      if (agentName === undefined)
        fail("validation_failed", "This join code does not name an agent; send agentName.", {
          errors: [{ path: "/agentName", in: "body", message: "required for this join code" }],
        });
      const creator = await store.getUser(rec.createdBy);
      if (!creator || creator.deletedAt !== null)
        fail("join_code_invalid", "The human who created this code is gone.");
      if (!(await store.getRegistryAgent(agentName)))
        await registry.publishAs(creator.id, false, { name: agentName, selfServe: true });
      // A code that names no agent lets its redeemer choose the name, so it may only create an identity;
      // one that names an agent binds an existing identity only if the code's creator owns it.
      const binder: Binder = {
        humanId: creator.id,
        isAdmin: creator.isAdmin,
        existing: rec.agentName === null ? "new-only" : "owner",
      };
      return store.transaction(async (tx) => {
        const inst = await registry.installIn(
          tx,
          {
            agentName,
            podId: rec.podId,
            scopes: rec.scopes,
            ...(input.instanceId ? { instanceId: input.instanceId } : {}),
          },
          "self",
          binder,
        );
        if (!(await tx.markJoinCodeUsed({ id: rec.id, now: clock.now(), installationId: inst.id })))
          fail("join_code_used");
        const { token, record } = await tokens.issueRuntimeToken(tx, inst, rec.createdBy, "join code");
        return { token, tokenId: record.id, installation: inst };
      });
    },
  };
}

export type JoinsService = ReturnType<typeof createJoinsService>;
