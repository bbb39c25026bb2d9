/**
 * SQLite ops for agents: registry entries, agent identities, installations and runtime tokens.
 */

import type { AgentOpName } from "../contract.js";
import { StoreConflictError } from "../contract.js";
import { type Row, toIdentity, toInstallation, toRegistryAgent, toRuntimeToken, toUser } from "./rows.js";
import { statementCache } from "./statement-cache.js";
import type { SqliteContext, SyncOps } from "./types.js";

type AgentOps = Pick<SyncOps, AgentOpName>;

/** Runs an insert, turning a uniqueness violation into the contract's StoreConflictError. */
export function insertOrConflict(run: () => unknown, what: string): void {
  try {
    run();
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    if (code.startsWith("SQLITE_CONSTRAINT_UNIQUE") || code.startsWith("SQLITE_CONSTRAINT_PRIMARYKEY"))
      throw new StoreConflictError(`${what} already exists`);
    throw err;
  }
}

export function agentOps({ db, authChanged }: SqliteContext): AgentOps {
  const prepared = statementCache(db);
  const q = {
    putRegistry: db.prepare(
      `INSERT INTO registry_agents (name, manifest, published_by, created_at, updated_at)
       VALUES (@name, @manifest, @publishedBy, @createdAt, @updatedAt)
       ON CONFLICT (name) DO UPDATE SET manifest = excluded.manifest, published_by = excluded.published_by,
         updated_at = excluded.updated_at`,
    ),
    getRegistry: db.prepare("SELECT * FROM registry_agents WHERE name = ?"),
    listRegistry: db.prepare("SELECT * FROM registry_agents ORDER BY name"),
    insertIdentity: db.prepare(
      `INSERT INTO agent_identities (id, agent_name, instance_id, created_at)
       VALUES (@id, @agentName, @instanceId, @createdAt) ON CONFLICT (agent_name, instance_id) DO NOTHING`,
    ),
    getIdentity: db.prepare("SELECT * FROM agent_identities WHERE id = ?"),
    findIdentity: db.prepare("SELECT * FROM agent_identities WHERE agent_name = ? AND instance_id = ?"),
    insertInstallation: db.prepare(
      `INSERT INTO installations (id, agent_id, agent_name, instance_id, pod_id, scopes, message_posted,
         installed_by_kind, installed_by_id, authorized_by, status, created_at, uninstalled_at, uninstalled_by)
       VALUES (@id, @agentId, @agentName, @instanceId, @podId, @scopes, @messagePosted, @installedByKind,
         @installedById, @authorizedBy, @status, @createdAt, @uninstalledAt, @uninstalledBy)`,
    ),
    getInstallation: db.prepare("SELECT * FROM installations WHERE id = ?"),
    activeInstallation: db.prepare(
      "SELECT * FROM installations WHERE agent_id = ? AND pod_id = ? AND status = 'active'",
    ),
    uninstall: db.prepare(
      `UPDATE installations SET status = 'uninstalled', uninstalled_at = ?, uninstalled_by = ?
       WHERE id = ? AND status = 'active'`,
    ),
    insertToken: db.prepare(
      `INSERT INTO runtime_tokens (id, hash, agent_id, installation_id, pod_id, issued_by, label, created_at,
         last_used_at, revoked_at)
       VALUES (@id, @hash, @agentId, @installationId, @podId, @issuedBy, @label, @createdAt, @lastUsedAt, @revokedAt)`,
    ),
    // Authentication in one read: token, identity, installation and issuer; expand() nests each table's
    // columns under its table name, so no per-request renaming of the joined row is needed.
    authByHash: db
      .prepare(
        `SELECT t.*, a.*, i.*, u.*
       FROM runtime_tokens t
       JOIN agent_identities a ON a.id = t.agent_id
       JOIN installations i ON i.id = t.installation_id
       LEFT JOIN users u ON u.id = t.issued_by
       WHERE t.hash = ?`,
      )
      .expand(true),
    getToken: db.prepare("SELECT * FROM runtime_tokens WHERE id = ?"),
    tokensOfInstallation: db.prepare("SELECT * FROM runtime_tokens WHERE installation_id = ? ORDER BY seq"),
    tokensOfAgent: db.prepare("SELECT * FROM runtime_tokens WHERE agent_id = ? ORDER BY seq"),
    revokeToken: db.prepare("UPDATE runtime_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    revokeOfInstallation: db.prepare(
      "UPDATE runtime_tokens SET revoked_at = ? WHERE installation_id = ? AND revoked_at IS NULL",
    ),
    revokeIssuedBy: db.prepare(
      "UPDATE runtime_tokens SET revoked_at = ? WHERE issued_by = ? AND revoked_at IS NULL",
    ),
    touchToken: db.prepare("UPDATE runtime_tokens SET last_used_at = ? WHERE id = ?"),
  };
  const one = <T>(r: unknown, map: (r: Row) => T): T | null => (r ? map(r as Row) : null);
  /** Announces an auth change (for token caches) when a write changed rows; passes the count through. */
  const changed = (n: number): number => {
    if (n > 0) authChanged();
    return n;
  };
  return {
    putRegistryAgent: (a) => void q.putRegistry.run({ ...a, manifest: JSON.stringify(a.manifest) }),
    getRegistryAgent: (name) => one(q.getRegistry.get(name), toRegistryAgent),
    listRegistryAgents: () => (q.listRegistry.all() as Row[]).map(toRegistryAgent),
    ensureAgentIdentity: (i) => {
      q.insertIdentity.run(i);
      return toIdentity(q.findIdentity.get(i.agentName, i.instanceId) as Row);
    },
    getAgentIdentity: (id) => one(q.getIdentity.get(id), toIdentity),
    findAgentIdentity: (name, instanceId) => one(q.findIdentity.get(name, instanceId), toIdentity),
    insertInstallation: (i) =>
      insertOrConflict(
        () =>
          q.insertInstallation.run({
            ...i,
            scopes: JSON.stringify(i.scopes),
            messagePosted: i.messagePosted ? 1 : 0,
            installedByKind: i.installedBy.kind,
            installedById: i.installedBy.id,
          }),
        "an active installation of this agent in this pod",
      ),
    getInstallation: (id) => one(q.getInstallation.get(id), toInstallation),
    findActiveInstallation: (agentId, podId) => one(q.activeInstallation.get(agentId, podId), toInstallation),
    listInstallations: ({ podId, agentId, activeOnly }) => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (podId !== undefined) {
        where.push("pod_id = ?");
        args.push(podId);
      }
      if (agentId !== undefined) {
        where.push("agent_id = ?");
        args.push(agentId);
      }
      if (activeOnly) where.push("status = 'active'");
      const sql = `SELECT * FROM installations ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq`;
      return (prepared(sql).all(...args) as Row[]).map(toInstallation);
    },
    markInstallationUninstalled: ({ id, now, by }) => changed(q.uninstall.run(now, by, id).changes) === 1,
    insertRuntimeToken: (t) => insertOrConflict(() => q.insertToken.run(t), "runtime token"),
    findRuntimeTokenByHash: (hash) => {
      const r = q.authByHash.get(hash) as Record<string, Row> | undefined;
      if (!r) return null;
      return {
        token: toRuntimeToken(r.runtime_tokens as Row),
        identity: toIdentity(r.agent_identities as Row),
        installation: toInstallation(r.installations as Row),
        issuer: r.users?.id == null ? null : toUser(r.users),
      };
    },
    getRuntimeToken: (id) => one(q.getToken.get(id), toRuntimeToken),
    listRuntimeTokens: ({ installationId, agentId }) => {
      const rows = installationId
        ? q.tokensOfInstallation.all(installationId)
        : agentId
          ? q.tokensOfAgent.all(agentId)
          : [];
      return (rows as Row[])
        .filter((r) => agentId === undefined || r.agent_id === agentId)
        .map(toRuntimeToken);
    },
    revokeRuntimeToken: (id, now) => changed(q.revokeToken.run(now, id).changes) === 1,
    revokeRuntimeTokensOfInstallation: (id, now) => changed(q.revokeOfInstallation.run(now, id).changes),
    revokeRuntimeTokensIssuedBy: (userId, now) => changed(q.revokeIssuedBy.run(now, userId).changes),
    touchRuntimeToken: (id, now) => void q.touchToken.run(now, id),
  };
}
