/**
 * The registry: publish agent manifests, install an agent identity into a pod, issue/list/revoke its
 * runtime tokens, uninstall. Audit (CAP-AUTH-7): an installation records installedBy (whose row: the human,
 * or the agent itself for a join-code install) and authorizedBy (always a human); every runtime token
 * records the human who issued it. Uninstalling revokes the installation's tokens and retires the
 * identity's open events of that pod (kept as failed, reason "uninstalled").
 *
 * Ownership (CAP-AUTH-9, docs/security.md): a runtime token speaks for its identity in every pod, so only
 * the identity's owner — the human who created it by its first install — or a kernel admin may install it
 * into a pod or mint its tokens. Being a pod's admin is never enough to bind someone else's identity.
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import {
  type Actor,
  type AgentIdentityRecord,
  type DoubleTexting,
  type InstallationRecord,
  type RuntimeTokenRecord,
  StoreConflictError,
  type StoreOps,
} from "../store/contract.js";
import { requirePodAdmin } from "./access.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { TokensService } from "./tokens.js";

export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface InstallInput {
  agentName: string;
  podId: string;
  instanceId?: string;
  scopes?: string[];
  messagePosted?: boolean;
  /** The double-texting policy (feature `cancel`); default `enqueue`. */
  doubleTexting?: DoubleTexting;
}

export function wireInstallation(i: InstallationRecord) {
  return {
    id: i.id,
    agentName: i.agentName,
    instanceId: i.instanceId,
    podId: i.podId,
    scopes: i.scopes,
    messagePosted: i.messagePosted,
    doubleTexting: i.doubleTexting,
    installedBy: i.installedBy,
    authorizedBy: i.authorizedBy,
    status: i.status,
    createdAt: iso(i.createdAt),
    ...(i.uninstalledAt !== null
      ? { uninstalledAt: iso(i.uninstalledAt), uninstalledBy: i.uninstalledBy }
      : {}),
  };
}

export function wireRuntimeToken(t: RuntimeTokenRecord) {
  return {
    id: t.id,
    label: t.label,
    installationId: t.installationId,
    issuedBy: t.issuedBy,
    createdAt: iso(t.createdAt),
    lastUsedAt: t.lastUsedAt === null ? null : iso(t.lastUsedAt),
    revokedAt: t.revokedAt === null ? null : iso(t.revokedAt),
  };
}

/**
 * Who is binding an identity to a pod, and whether an existing identity may be bound: `owner` binds one
 * the human owns (any, for a kernel admin), `new-only` only creates (a join code that names no agent).
 */
export interface Binder {
  humanId: string;
  isAdmin: boolean;
  existing: "owner" | "new-only";
}

export function requireIdentityOwner(
  identity: AgentIdentityRecord,
  human: { userId: string; isAdmin: boolean },
): void {
  if (human.isAdmin || (identity.ownerId !== null && identity.ownerId === human.userId)) return;
  fail("identity_not_owned", undefined, { agentName: identity.agentName, instanceId: identity.instanceId });
}

export function createRegistryService({ store, clock }: ServiceDeps, tokens: TokensService) {
  /** Install without permission checks (the caller checked): used by the route, join codes and the CLI. */
  async function installIn(
    tx: StoreOps,
    input: InstallInput,
    installedBy: Actor | "self",
    binder: Binder,
  ): Promise<InstallationRecord> {
    if (!(await tx.getRegistryAgent(input.agentName))) fail("agent_not_found");
    const now = clock.now();
    const created = newId("agt");
    const identity = await tx.ensureAgentIdentity({
      id: created,
      agentName: input.agentName,
      instanceId: input.instanceId ?? "default",
      ownerId: binder.humanId,
      createdAt: now,
    });
    if (identity.id !== created) {
      if (binder.existing === "new-only")
        fail("identity_exists", undefined, {
          agentName: identity.agentName,
          instanceId: identity.instanceId,
        });
      requireIdentityOwner(identity, { userId: binder.humanId, isAdmin: binder.isAdmin });
    }
    if (await tx.findActiveInstallation(identity.id, input.podId)) fail("already_installed");
    const inst: InstallationRecord = {
      id: newId("ins"),
      agentId: identity.id,
      agentName: identity.agentName,
      instanceId: identity.instanceId,
      podId: input.podId,
      scopes: input.scopes ?? [],
      messagePosted: input.messagePosted ?? true,
      doubleTexting: input.doubleTexting ?? "enqueue",
      installedBy: installedBy === "self" ? { kind: "agent", id: identity.id } : installedBy,
      authorizedBy: binder.humanId,
      status: "active",
      createdAt: now,
      uninstalledAt: null,
      uninstalledBy: null,
    };
    try {
      await tx.insertInstallation(inst);
    } catch (err) {
      if (err instanceof StoreConflictError) fail("already_installed");
      throw err;
    }
    return inst;
  }

  async function publishAs(
    userId: string,
    isAdmin: boolean,
    manifest: Record<string, unknown> & { name: string },
  ) {
    const now = clock.now();
    const existing = await store.getRegistryAgent(manifest.name);
    if (existing && existing.publishedBy !== userId && !isAdmin) fail("agent_name_taken");
    const rec = {
      name: manifest.name,
      manifest,
      publishedBy: existing?.publishedBy ?? userId,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await store.putRegistryAgent(rec);
    return rec;
  }

  async function findActiveInstallation(podId: string, agentName: string, instanceId = "default") {
    const identity = await store.findAgentIdentity(agentName, instanceId);
    return identity ? store.findActiveInstallation(identity.id, podId) : null;
  }

  async function activeInstallation(podId: string, agentName: string, instanceId = "default") {
    const inst = await findActiveInstallation(podId, agentName, instanceId);
    if (!inst) fail("installation_not_found");
    return inst;
  }

  return {
    installIn,
    publishAs,
    activeInstallation,
    findActiveInstallation,

    /** The published agent with this name, or null. */
    get: (name: string) => store.getRegistryAgent(name),

    publish: (user: UserCaller, manifest: Record<string, unknown> & { name: string }) =>
      publishAs(user.userId, user.isAdmin, manifest),

    list: () => store.listRegistryAgents(),

    async install(user: UserCaller, input: InstallInput) {
      await requirePodAdmin(store, user, input.podId);
      const binder: Binder = { humanId: user.userId, isAdmin: user.isAdmin, existing: "owner" };
      return store.transaction((tx) => installIn(tx, input, { kind: "human", id: user.userId }, binder));
    },

    async issueToken(
      user: UserCaller,
      podId: string,
      agentName: string,
      opts: { instanceId?: string; label?: string },
    ) {
      await requirePodAdmin(store, user, podId);
      const inst = await activeInstallation(podId, agentName, opts.instanceId);
      const identity = await store.getAgentIdentity(inst.agentId);
      if (!identity) fail("installation_not_found");
      requireIdentityOwner(identity, user);
      const issued = await store.transaction((tx) =>
        tokens.issueRuntimeToken(tx, inst, user.userId, opts.label ?? null),
      );
      return { ...issued, installation: inst };
    },

    /**
     * Changes the active installation's double-texting policy: whoever may install the identity there (an
     * admin of the pod who owns it, or a kernel admin).
     */
    async updateInstallation(
      user: UserCaller,
      podId: string,
      agentName: string,
      change: { doubleTexting?: DoubleTexting },
      instanceId?: string,
    ) {
      await requirePodAdmin(store, user, podId);
      const inst = await activeInstallation(podId, agentName, instanceId);
      const identity = await store.getAgentIdentity(inst.agentId);
      if (!identity) fail("installation_not_found");
      requireIdentityOwner(identity, user);
      if (change.doubleTexting === undefined) return inst;
      const updated = await store.updateInstallation({ id: inst.id, doubleTexting: change.doubleTexting });
      if (!updated) fail("installation_not_found");
      return updated;
    },

    async listTokens(user: UserCaller, podId: string, agentName: string, instanceId?: string) {
      await requirePodAdmin(store, user, podId);
      const inst = await activeInstallation(podId, agentName, instanceId);
      // lastUsedAt refreshes are written in batches (token-touches.ts): this process's own go in first,
      // so the listing shows every use this kernel has seen.
      await tokens.touches.flush();
      return store.listRuntimeTokens({ installationId: inst.id });
    },

    async revokeToken(user: UserCaller, podId: string, agentName: string, tokenId: string) {
      await requirePodAdmin(store, user, podId);
      const token = await store.getRuntimeToken(tokenId);
      const inst = token ? await store.getInstallation(token.installationId) : null;
      if (!token || !inst || inst.podId !== podId || inst.agentName !== agentName)
        fail("runtime_token_not_found");
      await store.revokeRuntimeToken(tokenId, clock.now());
    },

    async uninstall(user: UserCaller, podId: string, agentName: string, instanceId?: string) {
      await requirePodAdmin(store, user, podId);
      const inst = await activeInstallation(podId, agentName, instanceId);
      return store.transaction(async (tx) => {
        const now = clock.now();
        if (!(await tx.markInstallationUninstalled({ id: inst.id, now, by: user.userId })))
          fail("installation_not_found");
        const revokedTokens = await tx.revokeRuntimeTokensOfInstallation(inst.id, now);
        const retiredEvents = await tx.failOpenEvents({
          agentId: inst.agentId,
          podId,
          now,
          reason: "uninstalled",
        });
        return { revokedTokens, retiredEvents };
      });
    },
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
