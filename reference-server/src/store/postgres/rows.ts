/**
 * Row mappers: snake_case PostgreSQL rows → the contract's records. BIGINT columns already arrive as
 * numbers (the pool's type parser, see index.ts) and `json` columns already parsed.
 *
 * Must never: reshape values beyond naming (the records are the contract; a store adds no policy).
 */
import type {
  AgentIdentityRecord,
  DecisionRecord,
  EventRecord,
  IdempotencyRecord,
  InstallationRecord,
  JoinCodeRecord,
  MemberRecord,
  MemoryRecord,
  MessageRecord,
  PodRecord,
  RegistryAgentRecord,
  RuntimeTokenRecord,
  UserRecord,
  UserTokenRecord,
} from "../records.js";
import type { Row } from "./db.js";

// biome-ignore lint/suspicious/noExplicitAny: rows are untyped; each mapper names its columns once.
type R = Row & Record<string, any>;

export const toUser = (r: R): UserRecord => ({
  id: r.id,
  name: r.name,
  isAdmin: r.is_admin,
  createdAt: r.created_at,
  deletedAt: r.deleted_at,
});

export const toUserToken = (r: R): UserTokenRecord => ({
  id: r.id,
  userId: r.user_id,
  hash: r.hash,
  label: r.label,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export const toPod = (r: R): PodRecord => ({
  id: r.id,
  name: r.name,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

export const toMember = (r: R): MemberRecord => ({
  podId: r.pod_id,
  userId: r.user_id,
  role: r.role,
  addedAt: r.added_at,
});

export const toRegistryAgent = (r: R): RegistryAgentRecord => ({
  name: r.name,
  manifest: r.manifest,
  publishedBy: r.published_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toIdentity = (r: R): AgentIdentityRecord => ({
  id: r.id,
  agentName: r.agent_name,
  instanceId: r.instance_id,
  createdAt: r.created_at,
});

export const toInstallation = (r: R): InstallationRecord => ({
  id: r.id,
  agentId: r.agent_id,
  agentName: r.agent_name,
  instanceId: r.instance_id,
  podId: r.pod_id,
  scopes: r.scopes,
  messagePosted: r.message_posted,
  installedBy: { kind: r.installed_by_kind, id: r.installed_by_id },
  authorizedBy: r.authorized_by,
  status: r.status,
  createdAt: r.created_at,
  uninstalledAt: r.uninstalled_at,
  uninstalledBy: r.uninstalled_by,
});

export const toRuntimeToken = (r: R): RuntimeTokenRecord => ({
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
});

export const toEvent = (r: R): EventRecord => ({
  id: r.id,
  agentId: r.agent_id,
  podId: r.pod_id,
  type: r.type,
  payload: r.payload,
  createdAt: r.created_at,
  state: r.state,
  attempts: r.attempts,
  attemptBase: r.attempt_base,
  leaseExpiresAt: r.lease_expires_at,
  ackedAt: r.acked_at,
  result: r.result,
  failedAt: r.failed_at,
  failReason: r.fail_reason,
  releasedAttempts: r.release_attempts ?? null,
  releaseReason: r.release_reason ?? null,
  availableAt: r.available_at ?? null,
});

export const toMessage = (r: R): MessageRecord => ({
  id: r.id,
  podId: r.pod_id,
  content: r.content,
  author: { kind: r.author_kind, id: r.author_id, name: r.author_name },
  replyToMessageId: r.reply_to_message_id,
  metadata: r.metadata,
  createdAt: r.created_at,
});

export const toMemory = (r: R): MemoryRecord => ({
  agentId: r.agent_id,
  content: r.content,
  sections: r.sections,
  sourceRuntime: r.source_runtime,
  syncKey: r.sync_key,
  updatedAt: r.updated_at,
});

export const toIdempotency = (r: R): IdempotencyRecord => ({
  agentId: r.agent_id,
  key: r.key,
  requestHash: r.request_hash,
  podId: r.pod_id,
  status: r.status,
  body: r.body,
  createdAt: r.created_at,
});

export const toDecision = (r: R): DecisionRecord => ({
  id: r.id,
  podId: r.pod_id,
  agentId: r.agent_id,
  messageId: r.message_id,
  decisionClass: r.decision_class,
  title: r.title,
  question: r.question,
  options: r.options,
  threadRootId: r.thread_root_id,
  context: r.context,
  createdAt: r.created_at,
  answeredAt: r.answered_at,
  answeredBy: r.answered_by,
  answerOption: r.answer_option,
  answerMessageId: r.answer_message_id,
});

export const toJoinCode = (r: R): JoinCodeRecord => ({
  id: r.id,
  hash: r.hash,
  podId: r.pod_id,
  agentName: r.agent_name,
  scopes: r.scopes,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  usedByInstallationId: r.used_by_installation_id,
});
