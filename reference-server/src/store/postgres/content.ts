/**
 * Messages, memory, idempotency records, decisions and join codes on PostgreSQL.
 *
 * The two read-for-update methods take a transaction-scoped advisory lock on (schema, agent[, key]) and only
 * then read, in a second statement: under READ COMMITTED each statement takes a new snapshot, so the read
 * sees whatever the previous lock holder committed. A lock (rather than SELECT … FOR UPDATE) also
 * serialises writers of a row that does not exist yet, without inserting a placeholder row.
 *
 * Must never: merge memory (the service computes the envelope; putMemory replaces the row).
 */
import type { ContentOpName, StoreOps } from "../contract.js";
import { insertInto } from "../rows.js";
import { DECISIONS, IDEMPOTENCY_RECORDS, JOIN_CODES, MEMORY, MESSAGES } from "../schema.js";
import type { Db } from "./db.js";
import { JSON_PARAMS, toDecision, toIdempotency, toJoinCode, toMemory, toMessage } from "./rows.js";

type ContentOps = Pick<StoreOps, ContentOpName>;

const INSERT_MESSAGE = insertInto(MESSAGES, "postgres", JSON_PARAMS);
const PUT_MEMORY = insertInto(
  MEMORY,
  "postgres",
  JSON_PARAMS,
  `ON CONFLICT (agent_id) DO UPDATE SET content = EXCLUDED.content, sections = EXCLUDED.sections,
     source_runtime = EXCLUDED.source_runtime, sync_key = EXCLUDED.sync_key, updated_at =
     EXCLUDED.updated_at`,
);
const PUT_IDEMPOTENCY = insertInto(
  IDEMPOTENCY_RECORDS,
  "postgres",
  JSON_PARAMS,
  `ON CONFLICT (agent_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, pod_id =
     EXCLUDED.pod_id, status = EXCLUDED.status, body = EXCLUDED.body, created_at = EXCLUDED.created_at`,
);
const INSERT_DECISION = insertInto(DECISIONS, "postgres", JSON_PARAMS);
const INSERT_JOIN_CODE = insertInto(JOIN_CODES, "postgres", JSON_PARAMS);

/** First key of the two-int advisory locks (class id): "CAP" + purpose. */
const LOCK_MEMORY = 0x43415001;
const LOCK_IDEMPOTENCY = 0x43415002;

export function contentOps(db: Db): ContentOps {
  const lock = (klass: number, key: string) =>
    db.query("SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || ':' || $2))", [klass, key]);
  const getMemory = async (agentId: string) => {
    const rows = await db.query("SELECT * FROM memory WHERE agent_id = $1", [agentId]);
    return rows[0] ? toMemory(rows[0]) : null;
  };
  const getIdem = async (agentId: string, key: string) => {
    const rows = await db.query("SELECT * FROM idempotency_records WHERE agent_id = $1 AND key = $2", [
      agentId,
      key,
    ]);
    return rows[0] ? toIdempotency(rows[0]) : null;
  };

  return {
    async insertMessage(m) {
      await db.query(INSERT_MESSAGE.sql, INSERT_MESSAGE.values(m));
    },
    async getMessage(id) {
      const rows = await db.query("SELECT * FROM messages WHERE id = $1", [id]);
      return rows[0] ? toMessage(rows[0]) : null;
    },
    // The pod's messages after the root (messages_pod), by the events' agents, replying to it or in its trace.
    async listReplies({ podId, after, agentIds, traceId, limit }) {
      if (agentIds.length === 0) return [];
      const rows = await db.query(
        `SELECT * FROM messages
          WHERE pod_id = $1 AND seq > (SELECT seq FROM messages WHERE id = $2 AND pod_id = $1)
            AND author_kind = 'agent' AND author_id = ANY($3::text[])
            AND (reply_to_message_id = $2 OR substr(traceparent, 4, 32) = $4)
          ORDER BY seq LIMIT $5`,
        [podId, after, agentIds, traceId, limit],
      );
      return rows.map(toMessage);
    },

    async listMessages({ podId, limit, before }) {
      const rows =
        before === undefined
          ? await db.query("SELECT * FROM messages WHERE pod_id = $1 ORDER BY seq DESC LIMIT $2", [
              podId,
              limit,
            ])
          : await db.query(
              `SELECT * FROM messages
                WHERE pod_id = $1 AND seq < (SELECT seq FROM messages WHERE id = $3 AND pod_id = $1)
                ORDER BY seq DESC LIMIT $2`,
              [podId, limit, before],
            );
      return rows.map(toMessage);
    },

    getMemory,
    async getMemoryForUpdate(agentId) {
      await lock(LOCK_MEMORY, agentId);
      return getMemory(agentId);
    },
    async putMemory(m) {
      await db.query(PUT_MEMORY.sql, PUT_MEMORY.values(m));
    },

    async getIdempotencyRecord(agentId, key) {
      await lock(LOCK_IDEMPOTENCY, `${agentId}\u0001${key}`);
      return getIdem(agentId, key);
    },
    async putIdempotencyRecord(r) {
      await db.query(PUT_IDEMPOTENCY.sql, PUT_IDEMPOTENCY.values(r));
    },
    async pruneIdempotencyRecords(createdBefore) {
      return (
        await db.query("DELETE FROM idempotency_records WHERE created_at < $1 RETURNING 1", [createdBefore])
      ).length;
    },

    async insertDecision(d) {
      await db.query(INSERT_DECISION.sql, INSERT_DECISION.values(d));
    },
    async getDecision(id) {
      const rows = await db.query("SELECT * FROM decisions WHERE id = $1", [id]);
      return rows[0] ? toDecision(rows[0]) : null;
    },
    async listDecisions({ podId }) {
      return (await db.query("SELECT * FROM decisions WHERE pod_id = $1 ORDER BY seq", [podId])).map(
        toDecision,
      );
    },
    async answerDecision({ id, now, answeredBy, option, answerMessageId }) {
      const rows = await db.query(
        `UPDATE decisions SET answered_at = $2, answered_by = $3, answer_option = $4, answer_message_id = $5
          WHERE id = $1 AND answered_at IS NULL RETURNING 1`,
        [id, now, answeredBy, option, answerMessageId],
      );
      return rows.length > 0;
    },

    async insertJoinCode(c) {
      await db.query(INSERT_JOIN_CODE.sql, INSERT_JOIN_CODE.values(c));
    },
    async findJoinCodeByHash(hash) {
      const rows = await db.query("SELECT * FROM join_codes WHERE hash = $1", [hash]);
      return rows[0] ? toJoinCode(rows[0]) : null;
    },
    async listJoinCodes(podId) {
      return (await db.query("SELECT * FROM join_codes WHERE pod_id = $1 ORDER BY seq", [podId])).map(
        toJoinCode,
      );
    },
    async expireJoinCodesCreatedBy({ userId, podId, now }) {
      const rows = await db.query(
        `UPDATE join_codes SET expires_at = $3 WHERE created_by = $1 AND pod_id = $2 AND used_at IS NULL
         AND expires_at > $3 RETURNING 1`,
        [userId, podId, now],
      );
      return rows.length;
    },
    async markJoinCodeUsed({ id, now, installationId }) {
      const rows = await db.query(
        "UPDATE join_codes SET used_at = $2, used_by_installation_id = $3 WHERE id = $1 AND used_at IS NULL RETURNING 1",
        [id, now, installationId],
      );
      return rows.length > 0;
    },
  };
}
