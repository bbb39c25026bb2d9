/**
 * The registry (ADR-004 §Registry): publish agent manifests, install an agent identity into a pod,
 * issue/list/revoke its runtime tokens, uninstall. Audit (CAP-AUTH-7): an installation records installedBy
 * (whose row: the human, or the agent itself for a join-code install) and authorizedBy (always a human);
 * every runtime token records the human who issued it. Uninstalling revokes the installation's tokens and
 * retires the identity's open events of that pod (kept as failed, reason "uninstalled").
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import { StoreConflictError, } from "../store/contract.js";
import { requirePodAdmin } from "./access.js";
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export function wireInstallation(i) {
    return {
        id: i.id,
        agentName: i.agentName,
        instanceId: i.instanceId,
        podId: i.podId,
        scopes: i.scopes,
        messagePosted: i.messagePosted,
        installedBy: i.installedBy,
        authorizedBy: i.authorizedBy,
        status: i.status,
        createdAt: iso(i.createdAt),
        ...(i.uninstalledAt !== null
            ? { uninstalledAt: iso(i.uninstalledAt), uninstalledBy: i.uninstalledBy }
            : {}),
    };
}
export function wireRuntimeToken(t) {
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
export function createRegistryService({ store, clock }, tokens) {
    /** Install without permission checks (the caller checked): used by the route, join codes and the CLI. */
    async function installIn(tx, input, installedBy, authorizedBy) {
        if (!(await tx.getRegistryAgent(input.agentName)))
            fail("agent_not_found");
        const now = clock.now();
        const identity = await tx.ensureAgentIdentity({
            id: newId("agt"),
            agentName: input.agentName,
            instanceId: input.instanceId ?? "default",
            createdAt: now,
        });
        if (await tx.findActiveInstallation(identity.id, input.podId))
            fail("already_installed");
        const inst = {
            id: newId("ins"),
            agentId: identity.id,
            agentName: identity.agentName,
            instanceId: identity.instanceId,
            podId: input.podId,
            scopes: input.scopes ?? [],
            messagePosted: input.messagePosted ?? true,
            installedBy: installedBy === "self" ? { kind: "agent", id: identity.id } : installedBy,
            authorizedBy,
            status: "active",
            createdAt: now,
            uninstalledAt: null,
            uninstalledBy: null,
        };
        try {
            await tx.insertInstallation(inst);
        }
        catch (err) {
            if (err instanceof StoreConflictError)
                fail("already_installed");
            throw err;
        }
        return inst;
    }
    async function publishAs(userId, isAdmin, manifest) {
        const now = clock.now();
        const existing = await store.getRegistryAgent(manifest.name);
        if (existing && existing.publishedBy !== userId && !isAdmin)
            fail("agent_name_taken");
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
    async function findActiveInstallation(podId, agentName, instanceId = "default") {
        const identity = await store.findAgentIdentity(agentName, instanceId);
        return identity ? store.findActiveInstallation(identity.id, podId) : null;
    }
    async function activeInstallation(podId, agentName, instanceId = "default") {
        const inst = await findActiveInstallation(podId, agentName, instanceId);
        if (!inst)
            fail("installation_not_found");
        return inst;
    }
    return {
        installIn,
        publishAs,
        activeInstallation,
        findActiveInstallation,
        /** The published agent with this name, or null. */
        get: (name) => store.getRegistryAgent(name),
        publish: (user, manifest) => publishAs(user.userId, user.isAdmin, manifest),
        list: () => store.listRegistryAgents(),
        async install(user, input) {
            await requirePodAdmin(store, user, input.podId);
            return store.transaction((tx) => installIn(tx, input, { kind: "human", id: user.userId }, user.userId));
        },
        async issueToken(user, podId, agentName, opts) {
            await requirePodAdmin(store, user, podId);
            const inst = await activeInstallation(podId, agentName, opts.instanceId);
            const issued = await store.transaction((tx) => tokens.issueRuntimeToken(tx, inst, user.userId, opts.label ?? null));
            return { ...issued, installation: inst };
        },
        async listTokens(user, podId, agentName, instanceId) {
            await requirePodAdmin(store, user, podId);
            const inst = await activeInstallation(podId, agentName, instanceId);
            // lastUsedAt refreshes are written in batches (token-touches.ts): this process's own go in first,
            // so the listing shows every use this kernel has seen.
            await tokens.touches.flush();
            return store.listRuntimeTokens({ installationId: inst.id });
        },
        async revokeToken(user, podId, agentName, tokenId) {
            await requirePodAdmin(store, user, podId);
            const token = await store.getRuntimeToken(tokenId);
            const inst = token ? await store.getInstallation(token.installationId) : null;
            if (!token || !inst || inst.podId !== podId || inst.agentName !== agentName)
                fail("runtime_token_not_found");
            await store.revokeRuntimeToken(tokenId, clock.now());
        },
        async uninstall(user, podId, agentName, instanceId) {
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
//# sourceMappingURL=registry.js.map