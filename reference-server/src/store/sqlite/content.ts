/**
 * SQLite ops for pod content and agent state: messages, memory, idempotency records, decisions, join codes.
 */

import type { ContentOpName } from "../contract.js";
import { insertInto } from "../rows.js";
import { DECISIONS, IDEMPOTENCY_RECORDS, JOIN_CODES, MEMORY, MESSAGES } from "../schema.js";
import { insertOrConflict } from "./agents.js";
import { JSON_TEXT, type Row, toDecision, toIdempotency, toJoinCode, toMemory, toMessage } from "./rows.js";
import type { SqliteContext, SyncOps } from "./types.js";

type ContentOps = Pick<SyncOps, ContentOpName>;

const INSERT_MESSAGE = insertInto(MESSAGES, "sqlite", JSON_TEXT);
const PUT_MEMORY = insertInto(
  MEMORY,
  "sqlite",
  JSON_TEXT,
  `ON CONFLICT (agent_id) DO UPDATE SET content = excluded.content, sections = excluded.sections,
     source_runtime = excluded.source_runtime, sync_key = excluded.sync_key, updated_at = excluded.updated_at`,
);
const PUT_IDEMPOTENCY = insertInto(
  IDEMPOTENCY_RECORDS,
  "sqlite",
  JSON_TEXT,
  `ON CONFLICT (agent_id, key) DO UPDATE SET request_hash = excluded.request_hash, pod_id = excluded.pod_id,
     status = excluded.status, body = excluded.body, created_at = excluded.created_at`,
);
const INSERT_DECISION = insertInto(DECISIONS, "sqlite", JSON_TEXT);
const INSERT_JOIN_CODE = insertInto(JOIN_CODES, "sqlite", JSON_TEXT);

export function contentOps({ db }: SqliteContext): ContentOps {
  const q = {
    insertMessage: db.prepare(INSERT_MESSAGE.sql),
    getMessage: db.prepare("SELECT * FROM messages WHERE id = ?"),
    listMessages: db.prepare("SELECT * FROM messages WHERE pod_id = ? ORDER BY seq DESC LIMIT ?"),
    listMessagesBefore: db.prepare(
      `SELECT * FROM messages WHERE pod_id = @podId
         AND seq < (SELECT seq FROM messages WHERE id = @before AND pod_id = @podId)
       ORDER BY seq DESC LIMIT @limit`,
    ),
    // The pod's messages after the root (messages_pod), by the events' agents, replying to it or in its trace.
    listReplies: db.prepare(
      `SELECT * FROM messages WHERE pod_id = @podId
         AND seq > (SELECT seq FROM messages WHERE id = @after AND pod_id = @podId)
         AND author_kind = 'agent' AND author_id IN (SELECT value FROM json_each(@agentIds))
         AND (reply_to_message_id = @after OR substr(traceparent, 4, 32) = @traceId)
       ORDER BY seq LIMIT @limit`,
    ),
    getMemory: db.prepare("SELECT * FROM memory WHERE agent_id = ?"),
    putMemory: db.prepare(PUT_MEMORY.sql),
    getIdem: db.prepare("SELECT * FROM idempotency_records WHERE agent_id = ? AND key = ?"),
    putIdem: db.prepare(PUT_IDEMPOTENCY.sql),
    pruneIdem: db.prepare("DELETE FROM idempotency_records WHERE created_at < ?"),
    insertDecision: db.prepare(INSERT_DECISION.sql),
    getDecision: db.prepare("SELECT * FROM decisions WHERE id = ?"),
    listDecisions: db.prepare("SELECT * FROM decisions WHERE pod_id = ? ORDER BY seq"),
    answerDecision: db.prepare(
      `UPDATE decisions SET answered_at = @now, answered_by = @answeredBy, answer_option = @option,
         answer_message_id = @answerMessageId WHERE id = @id AND answered_at IS NULL`,
    ),
    insertJoinCode: db.prepare(INSERT_JOIN_CODE.sql),
    joinCodeByHash: db.prepare("SELECT * FROM join_codes WHERE hash = ?"),
    listJoinCodes: db.prepare("SELECT * FROM join_codes WHERE pod_id = ? ORDER BY seq"),
    expireJoinCodes: db.prepare(
      `UPDATE join_codes SET expires_at = ? WHERE created_by = ? AND pod_id = ? AND used_at IS NULL
       AND expires_at > ?`,
    ),
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
      insertOrConflict(() => q.insertMessage.run(INSERT_MESSAGE.values(m)), `message ${m.id}`),
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
    listReplies: ({ podId, after, agentIds, traceId, limit }) =>
      agentIds.length === 0
        ? []
        : (
            q.listReplies.all({ podId, after, agentIds: JSON.stringify(agentIds), traceId, limit }) as Row[]
          ).map(toMessage),
    getMemory,
    // One writer at a time already (BEGIN IMMEDIATE + the store's transaction lock): a plain read suffices.
    getMemoryForUpdate: getMemory,
    putMemory: (m) => void q.putMemory.run(PUT_MEMORY.values(m)),
    getIdempotencyRecord: (agentId, key) => {
      const r = q.getIdem.get(agentId, key) as Row | undefined;
      return r ? toIdempotency(r) : null;
    },
    putIdempotencyRecord: (r) => void q.putIdem.run(PUT_IDEMPOTENCY.values(r)),
    pruneIdempotencyRecords: (before) => q.pruneIdem.run(before).changes,
    insertDecision: (d) =>
      insertOrConflict(() => q.insertDecision.run(INSERT_DECISION.values(d)), `decision ${d.id}`),
    getDecision: (id) => {
      const r = q.getDecision.get(id) as Row | undefined;
      return r ? toDecision(r) : null;
    },
    listDecisions: ({ podId }) => (q.listDecisions.all(podId) as Row[]).map(toDecision),
    answerDecision: (input) => q.answerDecision.run(input).changes === 1,
    insertJoinCode: (c) =>
      insertOrConflict(() => q.insertJoinCode.run(INSERT_JOIN_CODE.values(c)), `join code ${c.id}`),
    findJoinCodeByHash: (hash) => {
      const r = q.joinCodeByHash.get(hash) as Row | undefined;
      return r ? toJoinCode(r) : null;
    },
    listJoinCodes: (podId) => (q.listJoinCodes.all(podId) as Row[]).map(toJoinCode),
    expireJoinCodesCreatedBy: ({ userId, podId, now }) =>
      q.expireJoinCodes.run(now, userId, podId, now).changes,
    markJoinCodeUsed: ({ id, now, installationId }) =>
      q.useJoinCode.run(now, installationId, id).changes === 1,
  };
}
