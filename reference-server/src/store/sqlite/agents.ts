/**
 * SQLite ops for agents: registry entries, agent identities, installations and runtime tokens.
 */

import type { AgentOpName } from "../contract.js";
import { StoreConflictError } from "../contract.js";
import { insertInto } from "../rows.js";
import { AGENT_IDENTITIES, INSTALLATIONS, REGISTRY_AGENTS, RUNTIME_TOKENS } from "../schema.js";
import {
  JSON_TEXT,
  type Row,
  toIdentity,
  toInstallation,
  toRegistryAgent,
  toRuntimeToken,
  toUser,
} from "./rows.js";
import { statementCache } from "./statement-cache.js";
import type { SqliteContext, SyncOps } from "./types.js";

type AgentOps = Pick<SyncOps, AgentOpName>;

const PUT_REGISTRY_AGENT = insertInto(
  REGISTRY_AGENTS,
  "sqlite",
  JSON_TEXT,
  `ON CONFLICT (name) DO UPDATE SET manifest = excluded.manifest, published_by = excluded.published_by,
     updated_at = excluded.updated_at`,
);
const INSERT_IDENTITY = insertInto(
  AGENT_IDENTITIES,
  "sqlite",
  JSON_TEXT,
  "ON CONFLICT (agent_name, instance_id) DO NOTHING",
);
const INSERT_INSTALLATION = insertInto(INSTALLATIONS, "sqlite", JSON_TEXT);
const INSERT_RUNTIME_TOKEN = insertInto(RUNTIME_TOKENS, "sqlite", JSON_TEXT);

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
    putRegistry: db.prepare(PUT_REGISTRY_AGENT.sql),
    getRegistry: db.prepare("SELECT * FROM registry_agents WHERE name = ?"),
    listRegistry: db.prepare("SELECT * FROM registry_agents ORDER BY name"),
    insertIdentity: db.prepare(INSERT_IDENTITY.sql),
    getIdentity: db.prepare("SELECT * FROM agent_identities WHERE id = ?"),
    findIdentity: db.prepare("SELECT * FROM agent_identities WHERE agent_name = ? AND instance_id = ?"),
    insertInstallation: db.prepare(INSERT_INSTALLATION.sql),
    getInstallation: db.prepare("SELECT * FROM installations WHERE id = ?"),
    activeInstallation: db.prepare(
      "SELECT * FROM installations WHERE agent_id = ? AND pod_id = ? AND status = 'active'",
    ),
    activeInPod: db.prepare(
      "SELECT * FROM installations WHERE pod_id = ? AND status = 'active' ORDER BY seq",
    ),
    setDoubleTexting: db.prepare(
      "UPDATE installations SET double_texting = ? WHERE id = ? AND status = 'active'",
    ),
    uninstall: db.prepare(
      `UPDATE installations SET status = 'uninstalled', uninstalled_at = ?, uninstalled_by = ?
       WHERE id = ? AND status = 'active'`,
    ),
    insertToken: db.prepare(INSERT_RUNTIME_TOKEN.sql),
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
    revokeIssuedInPod: db.prepare(
      `UPDATE runtime_tokens SET revoked_at = ? WHERE issued_by = ? AND revoked_at IS NULL
       AND installation_id IN (SELECT id FROM installations WHERE pod_id = ?)`,
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
    putRegistryAgent: (a) => void q.putRegistry.run(PUT_REGISTRY_AGENT.values(a)),
    getRegistryAgent: (name) => one(q.getRegistry.get(name), toRegistryAgent),
    listRegistryAgents: () => (q.listRegistry.all() as Row[]).map(toRegistryAgent),
    ensureAgentIdentity: (i) => {
      q.insertIdentity.run(INSERT_IDENTITY.values(i));
      return toIdentity(q.findIdentity.get(i.agentName, i.instanceId) as Row);
    },
    getAgentIdentity: (id) => one(q.getIdentity.get(id), toIdentity),
    findAgentIdentity: (name, instanceId) => one(q.findIdentity.get(name, instanceId), toIdentity),
    insertInstallation: (i) => {
      insertOrConflict(
        () => q.insertInstallation.run(INSERT_INSTALLATION.values(i)),
        "an active installation of this agent in this pod",
      );
    },
    getInstallation: (id) => one(q.getInstallation.get(id), toInstallation),
    findActiveInstallation: (agentId, podId) => one(q.activeInstallation.get(agentId, podId), toInstallation),
    listInstallations: ({ podId, agentId, activeOnly }) => {
      if (podId !== undefined && agentId === undefined && activeOnly)
        return (q.activeInPod.all(podId) as Row[]).map(toInstallation);
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
    updateInstallation: ({ id, doubleTexting }) =>
      q.setDoubleTexting.run(doubleTexting, id).changes === 1
        ? toInstallation(q.getInstallation.get(id) as Row)
        : null,
    markInstallationUninstalled: ({ id, now, by }) => changed(q.uninstall.run(now, by, id).changes) === 1,
    insertRuntimeToken: (t) =>
      insertOrConflict(() => q.insertToken.run(INSERT_RUNTIME_TOKEN.values(t)), "runtime token"),
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
    revokeRuntimeTokensIssuedInPod: ({ userId, podId, now }) =>
      changed(q.revokeIssuedInPod.run(now, userId, podId).changes),
    touchRuntimeToken: (id, now) => void q.touchToken.run(now, id),
  };
}
