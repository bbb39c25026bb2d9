/**
 * SQLite ops for pod content and agent state: messages, memory, idempotency records, decisions, join codes.
 */

import type { ContentOpName } from "../contract.js";
import { insertOrConflict } from "./agents.js";
import { json, type Row, toDecision, toIdempotency, toJoinCode, toMemory, toMessage } from "./rows.js";
import type { SqliteContext, SyncOps } from "./types.js";

type ContentOps = Pick<SyncOps, ContentOpName>;

export function contentOps({ db }: SqliteContext): ContentOps {
  const q = {
    insertMessage: db.prepare(
      `INSERT INTO messages (id, pod_id, content, author_kind, author_id, author_name, reply_to_message_id,
         metadata, created_at)
       VALUES (@id, @podId, @content, @authorKind, @authorId, @authorName, @replyToMessageId, @metadata, @createdAt)`,
    ),
    getMessage: db.prepare("SELECT * FROM messages WHERE id = ?"),
    listMessages: db.prepare("SELECT * FROM messages WHERE pod_id = ? ORDER BY seq DESC LIMIT ?"),
    listMessagesBefore: db.prepare(
      `SELECT * FROM messages WHERE pod_id = @podId
         AND seq < (SELECT seq FROM messages WHERE id = @before AND pod_id = @podId)
       ORDER BY seq DESC LIMIT @limit`,
    ),
    getMemory: db.prepare("SELECT * FROM memory WHERE agent_id = ?"),
    putMemory: db.prepare(
      `INSERT INTO memory (agent_id, content, sections, source_runtime, sync_key, updated_at)
       VALUES (@agentId, @content, @sections, @sourceRuntime, @syncKey, @updatedAt)
       ON CONFLICT (agent_id) DO UPDATE SET content = excluded.content, sections = excluded.sections,
         source_runtime = excluded.source_runtime, sync_key = excluded.sync_key, updated_at = excluded.updated_at`,
    ),
    getIdem: db.prepare("SELECT * FROM idempotency_records WHERE agent_id = ? AND key = ?"),
    putIdem: db.prepare(
      `INSERT INTO idempotency_records (agent_id, key, request_hash, pod_id, status, body, created_at)
       VALUES (@agentId, @key, @requestHash, @podId, @status, @body, @createdAt)
       ON CONFLICT (agent_id, key) DO UPDATE SET request_hash = excluded.request_hash, pod_id = excluded.pod_id,
         status = excluded.status, body = excluded.body, created_at = excluded.created_at`,
    ),
    pruneIdem: db.prepare("DELETE FROM idempotency_records WHERE created_at < ?"),
    insertDecision: db.prepare(
      `INSERT INTO decisions (id, pod_id, agent_id, message_id, decision_class, title, question, options,
         thread_root_id, context, created_at, answered_at, answered_by, answer_option, answer_message_id)
       VALUES (@id, @podId, @agentId, @messageId, @decisionClass, @title, @question, @options, @threadRootId,
         @context, @createdAt, @answeredAt, @answeredBy, @answerOption, @answerMessageId)`,
    ),
    getDecision: db.prepare("SELECT * FROM decisions WHERE id = ?"),
    listDecisions: db.prepare("SELECT * FROM decisions WHERE pod_id = ? ORDER BY seq"),
    answerDecision: db.prepare(
      `UPDATE decisions SET answered_at = @now, answered_by = @answeredBy, answer_option = @option,
         answer_message_id = @answerMessageId WHERE id = @id AND answered_at IS NULL`,
    ),
    insertJoinCode: db.prepare(
      `INSERT INTO join_codes (id, hash, pod_id, agent_name, scopes, created_by, created_at, expires_at, used_at,
         used_by_installation_id)
       VALUES (@id, @hash, @podId, @agentName, @scopes, @createdBy, @createdAt, @expiresAt, @usedAt,
         @usedByInstallationId)`,
    ),
    joinCodeByHash: db.prepare("SELECT * FROM join_codes WHERE hash = ?"),
    listJoinCodes: db.prepare("SELECT * FROM join_codes WHERE pod_id = ? ORDER BY seq"),
    useJoinCode: db.prepare(
      "UPDATE join_codes SET used_at = ?, used_by_installation_id = ? WHERE id = ? AND used_at IS NULL",
    ),
  };
  const getMemory = (agentId: string) => {
    const r = q.getMemory.get(agentId) as Row | undefined;
    return r ? toMemory(r) : null;
  };
  return {
    insertMessage: (m) =>
      insertOrConflict(
        () =>
          q.insertMessage.run({
            ...m,
            authorKind: m.author.kind,
            authorId: m.author.id,
            authorName: m.author.name,
            metadata: json(m.metadata),
          }),
        `message ${m.id}`,
      ),
    getMessage: (id) => {
      const r = q.getMessage.get(id) as Row | undefined;
      return r ? toMessage(r) : null;
    },
    listMessages: ({ podId, limit, before }) =>
      (
        (before === undefined
          ? q.listMessages.all(podId, limit)
          : q.listMessagesBefore.all({ podId, limit, before })) as Row[]
      ).map(toMessage),
    getMemory,
    // One writer at a time already (BEGIN IMMEDIATE + the store's transaction lock): a plain read suffices.
    getMemoryForUpdate: getMemory,
    putMemory: (m) => void q.putMemory.run({ ...m, sections: JSON.stringify(m.sections) }),
    getIdempotencyRecord: (agentId, key) => {
      const r = q.getIdem.get(agentId, key) as Row | undefined;
      return r ? toIdempotency(r) : null;
    },
    putIdempotencyRecord: (r) => void q.putIdem.run({ ...r, body: JSON.stringify(r.body) }),
    pruneIdempotencyRecords: (before) => q.pruneIdem.run(before).changes,
    insertDecision: (d) =>
      insertOrConflict(
        () => q.insertDecision.run({ ...d, options: JSON.stringify(d.options) }),
        `decision ${d.id}`,
      ),
    getDecision: (id) => {
      const r = q.getDecision.get(id) as Row | undefined;
      return r ? toDecision(r) : null;
    },
    listDecisions: ({ podId }) => (q.listDecisions.all(podId) as Row[]).map(toDecision),
    answerDecision: (input) => q.answerDecision.run(input).changes === 1,
    insertJoinCode: (c) =>
      insertOrConflict(
        () => q.insertJoinCode.run({ ...c, scopes: JSON.stringify(c.scopes) }),
        `join code ${c.id}`,
      ),
    findJoinCodeByHash: (hash) => {
      const r = q.joinCodeByHash.get(hash) as Row | undefined;
      return r ? toJoinCode(r) : null;
    },
    listJoinCodes: (podId) => (q.listJoinCodes.all(podId) as Row[]).map(toJoinCode),
    markJoinCodeUsed: ({ id, now, installationId }) =>
      q.useJoinCode.run(now, installationId, id).changes === 1,
  };
}
