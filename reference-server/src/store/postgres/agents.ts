/**
 * The registry, agent identities, installations and runtime tokens on PostgreSQL. "Oldest first" is
 * insertion order (`seq`).
 *
 * Must never: judge a token's validity (findRuntimeTokenByHash returns the token with its identity,
 * installation and issuer whatever their states; the tokens service decides).
 */
import type { AgentOpName, StoreOps } from "../contract.js";
import { insertInto, rowMapper, selectList } from "../rows.js";
import { AGENT_IDENTITIES, INSTALLATIONS, REGISTRY_AGENTS, RUNTIME_TOKENS, USERS } from "../schema.js";
import type { Db } from "./db.js";
import { JSON_PARAMS, toIdentity, toInstallation, toRegistryAgent, toRuntimeToken } from "./rows.js";

type AgentOps = Pick<StoreOps, AgentOpName>;

const PUT_REGISTRY_AGENT = insertInto(
  REGISTRY_AGENTS,
  "postgres",
  JSON_PARAMS,
  `ON CONFLICT (name) DO UPDATE SET manifest = EXCLUDED.manifest, published_by = EXCLUDED.published_by,
     created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at`,
);
const INSERT_IDENTITY = insertInto(
  AGENT_IDENTITIES,
  "postgres",
  JSON_PARAMS,
  "ON CONFLICT (agent_name, instance_id) DO NOTHING RETURNING *",
);
const INSERT_INSTALLATION = insertInto(INSTALLATIONS, "postgres", JSON_PARAMS);
const INSERT_RUNTIME_TOKEN = insertInto(RUNTIME_TOKENS, "postgres", JSON_PARAMS);

// Authentication joins four tables; each table's columns are aliased with a prefix (t_id, a_id, …) rather
// than read through row_to_json, which would bypass the text decoding in db.ts.
const FIND_RUNTIME_TOKEN = `
  SELECT ${selectList(RUNTIME_TOKENS, "t")}, ${selectList(AGENT_IDENTITIES, "a")},
         ${selectList(INSTALLATIONS, "i")}, ${selectList(USERS, "u")}
    FROM runtime_tokens t
    JOIN agent_identities a ON a.id = t.agent_id
    JOIN installations i ON i.id = t.installation_id
    LEFT JOIN users u ON u.id = t.issued_by
   WHERE t.hash = $1`;
const authToken = rowMapper(RUNTIME_TOKENS, "postgres", "t_");
const authIdentity = rowMapper(AGENT_IDENTITIES, "postgres", "a_");
const authInstallation = rowMapper(INSTALLATIONS, "postgres", "i_");
const authIssuer = rowMapper(USERS, "postgres", "u_");

export function agentOps(db: Db): AgentOps {
  const one = async <T>(text: string, values: unknown[], map: (r: never) => T): Promise<T | null> => {
    const rows = await db.query(text, values);
    return rows[0] ? map(rows[0] as never) : null;
  };
  const count = async (text: string, values: unknown[]): Promise<number> =>
    (await db.query(text, values)).length;
  /** Announces an auth change (token caches, every replica) when a revocation changed rows. */
  const announced = async (n: Promise<number>): Promise<number> => {
    const changed = await n;
    if (changed > 0) await db.authChanged();
    return changed;
  };

  return {
    async putRegistryAgent(a) {
      await db.query(PUT_REGISTRY_AGENT.sql, PUT_REGISTRY_AGENT.values(a));
    },
    getRegistryAgent: (name) => one("SELECT * FROM registry_agents WHERE name = $1", [name], toRegistryAgent),
    async listRegistryAgents() {
      return (await db.query("SELECT * FROM registry_agents ORDER BY seq")).map(toRegistryAgent);
    },

    async ensureAgentIdentity(i) {
      // ON CONFLICT DO NOTHING waits for a concurrent inserter of the same pair, then the SELECT (a new
      // statement, a new snapshot) sees its committed row.
      const inserted = await db.query(INSERT_IDENTITY.sql, INSERT_IDENTITY.values(i));
      if (inserted[0]) return toIdentity(inserted[0]);
      const found = await one(
        "SELECT * FROM agent_identities WHERE agent_name = $1 AND instance_id = $2",
        [i.agentName, i.instanceId],
        toIdentity,
      );
      if (!found) throw new Error("agent identity vanished between insert and select");
      return found;
    },
    getAgentIdentity: (id) => one("SELECT * FROM agent_identities WHERE id = $1", [id], toIdentity),
    findAgentIdentity: (agentName, instanceId) =>
      one(
        "SELECT * FROM agent_identities WHERE agent_name = $1 AND instance_id = $2",
        [agentName, instanceId],
        toIdentity,
      ),

    async insertInstallation(i) {
      await db.query(INSERT_INSTALLATION.sql, INSERT_INSTALLATION.values(i));
    },
    getInstallation: (id) => one("SELECT * FROM installations WHERE id = $1", [id], toInstallation),
    findActiveInstallation: (agentId, podId) =>
      one(
        "SELECT * FROM installations WHERE agent_id = $1 AND pod_id = $2 AND status = 'active'",
        [agentId, podId],
        toInstallation,
      ),
    async listInstallations(filter) {
      const rows = await db.query(
        `SELECT * FROM installations
          WHERE ($1::text IS NULL OR pod_id = $1) AND ($2::text IS NULL OR agent_id = $2)
            AND (NOT $3::boolean OR status = 'active')
          ORDER BY seq`,
        [filter.podId ?? null, filter.agentId ?? null, filter.activeOnly === true],
      );
      return rows.map(toInstallation);
    },
    async updateInstallation({ id, doubleTexting }) {
      const rows = await db.query(
        "UPDATE installations SET double_texting = $2 WHERE id = $1 AND status = 'active' RETURNING *",
        [id, doubleTexting],
      );
      return rows[0] ? toInstallation(rows[0]) : null;
    },

    async markInstallationUninstalled({ id, now, by }) {
      const n = await count(
        `UPDATE installations SET status = 'uninstalled', uninstalled_at = $2, uninstalled_by = $3
          WHERE id = $1 AND status = 'active' RETURNING 1`,
        [id, now, by],
      );
      if (n > 0) await db.authChanged();
      return n > 0;
    },

    async insertRuntimeToken(t) {
      await db.query(INSERT_RUNTIME_TOKEN.sql, INSERT_RUNTIME_TOKEN.values(t));
    },
    async findRuntimeTokenByHash(hash) {
      // One round trip on every authenticated request: the token with its identity, installation and issuer.
      const rows = await db.query(FIND_RUNTIME_TOKEN, [hash], "cap_find_runtime_token");
      const r = rows[0];
      if (!r) return null;
      return {
        token: authToken(r),
        identity: authIdentity(r),
        installation: authInstallation(r),
        issuer: r.u_id === null ? null : authIssuer(r),
      };
    },
    getRuntimeToken: (id) => one("SELECT * FROM runtime_tokens WHERE id = $1", [id], toRuntimeToken),
    async listRuntimeTokens(filter) {
      const rows = await db.query(
        `SELECT * FROM runtime_tokens
          WHERE ($1::text IS NULL OR installation_id = $1) AND ($2::text IS NULL OR agent_id = $2)
          ORDER BY seq`,
        [filter.installationId ?? null, filter.agentId ?? null],
      );
      return rows.map(toRuntimeToken);
    },
    async revokeRuntimeToken(id, now) {
      const n = await count(
        "UPDATE runtime_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING 1",
        [id, now],
      );
      if (n > 0) await db.authChanged();
      return n > 0;
    },
    revokeRuntimeTokensOfInstallation: (installationId, now) =>
      announced(
        count(
          "UPDATE runtime_tokens SET revoked_at = $2 WHERE installation_id = $1 AND revoked_at IS NULL RETURNING 1",
          [installationId, now],
        ),
      ),
    revokeRuntimeTokensIssuedBy: (userId, now) =>
      announced(
        count(
          "UPDATE runtime_tokens SET revoked_at = $2 WHERE issued_by = $1 AND revoked_at IS NULL RETURNING 1",
          [userId, now],
        ),
      ),
    revokeRuntimeTokensIssuedInPod: ({ userId, podId, now }) =>
      announced(
        count(
          `UPDATE runtime_tokens SET revoked_at = $3 WHERE issued_by = $1 AND revoked_at IS NULL
           AND installation_id IN (SELECT id FROM installations WHERE pod_id = $2) RETURNING 1`,
          [userId, podId, now],
        ),
      ),
    async touchRuntimeToken(id, now) {
      await db.query(
        "UPDATE runtime_tokens SET last_used_at = $2 WHERE id = $1",
        [id, now],
        "cap_touch_runtime_token",
      );
    },
  };
}
