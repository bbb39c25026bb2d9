/**
 * Column lists of the tables that joins read together (authentication: a token with its owner rows), so a
 * join can alias each table's columns with a prefix (`t_id`, `u_id`, …) instead of `row_to_json`, which
 * would bypass the text decoding in db.ts. Keep in step with migrations/.
 */
export const COLUMNS = {
  users: ["id", "name", "is_admin", "created_at", "deleted_at"],
  user_tokens: ["id", "user_id", "hash", "label", "created_at", "revoked_at"],
  agent_identities: ["id", "agent_name", "instance_id", "created_at"],
  installations: [
    "id",
    "agent_id",
    "agent_name",
    "instance_id",
    "pod_id",
    "scopes",
    "message_posted",
    "installed_by_kind",
    "installed_by_id",
    "authorized_by",
    "status",
    "created_at",
    "uninstalled_at",
    "uninstalled_by",
  ],
  runtime_tokens: [
    "id",
    "hash",
    "agent_id",
    "installation_id",
    "pod_id",
    "issued_by",
    "label",
    "created_at",
    "last_used_at",
    "revoked_at",
  ],
} as const;

/** `alias.col AS alias_col, …` */
export function cols(alias: string, columns: readonly string[]): string {
  return columns.map((c) => `${alias}.${c} AS ${alias}_${c}`).join(", ");
}

/** The columns of one table (`alias_col` → `col`) out of a row that `cols(alias, columns)` selected. */
export function pick(row: Record<string, unknown>, alias: string, columns: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[`${alias}_${c}`];
  return out;
}
