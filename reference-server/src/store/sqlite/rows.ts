/**
 * Row ↔ record mapping for the SQLite store: snake_case columns, 0/1 booleans, JSON as TEXT.
 */
import type {
  EventRecord,
  InstallationRecord,
  MessageRecord,
  RuntimeTokenRecord,
  UserRecord,
  UserTokenRecord,
} from "../records.js";

// biome-ignore lint/suspicious/noExplicitAny: rows come untyped from better-sqlite3
export type Row = Record<string, any>;

export const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
export const parse = (v: string | null): unknown => (v === null ? null : JSON.parse(v));

export function toUser(r: Row): UserRecord {
  return {
    id: r.id,
    name: r.name,
    isAdmin: r.is_admin === 1,
    createdAt: r.created_at,
    deletedAt: r.deleted_at,
  };
}

export function toUserToken(r: Row): UserTokenRecord {
  return {
    id: r.id,
    userId: r.user_id,
    hash: r.hash,
    label: r.label,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

export function toInstallation(r: Row): InstallationRecord {
  return {
    id: r.id,
    agentId: r.agent_id,
    agentName: r.agent_name,
    instanceId: r.instance_id,
    podId: r.pod_id,
    scopes: JSON.parse(r.scopes),
    messagePosted: r.message_posted === 1,
    installedBy: { kind: r.installed_by_kind, id: r.installed_by_id },
    authorizedBy: r.authorized_by,
    status: r.status,
    createdAt: r.created_at,
    uninstalledAt: r.uninstalled_at,
    uninstalledBy: r.uninstalled_by,
  };
}

export function toRuntimeToken(r: Row): RuntimeTokenRecord {
  return {
    id: r.id,
    hash: r.hash,
    agentId: r.agent_id,
    installationId: r.installation_id,
    podId: r.pod_id,
    issuedBy: r.issued_by,
    label: r.label,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

export function toEvent(r: Row): EventRecord {
  return {
    id: r.id,
    agentId: r.agent_id,
    podId: r.pod_id,
    type: r.type,
    payload: JSON.parse(r.payload),
    state: r.state,
    attempts: r.attempts,
    attemptBase: r.attempt_base,
    createdAt: r.created_at,
    leaseExpiresAt: r.lease_expires_at,
    ackedAt: r.acked_at,
    result: parse(r.result),
    failedAt: r.failed_at,
    failReason: r.fail_reason,
    releasedAttempts: r.release_attempts ?? null,
    releaseReason: r.release_reason ?? null,
    availableAt: r.available_at ?? null,
  };
}

export function toMessage(r: Row): MessageRecord {
  return {
    id: r.id,
    podId: r.pod_id,
    content: r.content,
    author: { kind: r.author_kind, id: r.author_id, name: r.author_name },
    replyToMessageId: r.reply_to_message_id,
    metadata: parse(r.metadata) as Record<string, unknown> | null,
    createdAt: r.created_at,
  };
}
