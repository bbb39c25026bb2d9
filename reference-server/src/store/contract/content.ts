/** Store operations for pod content and agent state: messages, memory, idempotency records, decisions, join codes. */
import type {
  DecisionRecord,
  IdempotencyRecord,
  JoinCodeRecord,
  MemoryRecord,
  MessageRecord,
} from "../records.js";

export interface ContentStore {
  // messages
  insertMessage(message: MessageRecord): Promise<void>;
  getMessage(id: string): Promise<MessageRecord | null>;
  /** Newest first; `before` = a message id of this pod: only messages inserted before it. */
  listMessages(input: { podId: string; limit: number; before?: string }): Promise<MessageRecord[]>;
  /**
   * The trace view's replies: messages of the pod inserted after message `after` (of this pod), written by
   * one of `agentIds`, that reply to it or whose traceparent has `traceId`; oldest first, at most `limit`.
   */
  listReplies(input: {
    podId: string;
    after: string;
    agentIds: string[];
    traceId: string | null;
    limit: number;
  }): Promise<MessageRecord[]>;

  // memory
  getMemory(agentId: string): Promise<MemoryRecord | null>;
  /**
   * Like getMemory, but inside a transaction it also serialises concurrent writers of this agent's
   * memory until commit (PostgreSQL: SELECT … FOR UPDATE, after ensuring the row exists).
   */
  getMemoryForUpdate(agentId: string): Promise<MemoryRecord | null>;
  /** Insert or replace the agent's memory row. */
  putMemory(memory: MemoryRecord): Promise<void>;

  // idempotency records (Idempotency-Key on POST messages)
  /** Inside a transaction, serialises concurrent requests with the same (agentId, key) until commit. */
  getIdempotencyRecord(agentId: string, key: string): Promise<IdempotencyRecord | null>;
  /** Insert or replace (an expired record is replaced by the new one). */
  putIdempotencyRecord(record: IdempotencyRecord): Promise<void>;
  /** Deletes records created before `createdBefore`; returns how many. */
  pruneIdempotencyRecords(createdBefore: number): Promise<number>;

  // decisions
  insertDecision(decision: DecisionRecord): Promise<void>;
  getDecision(id: string): Promise<DecisionRecord | null>;
  listDecisions(filter: { podId: string }): Promise<DecisionRecord[]>;
  /** Records the answer iff not answered yet; false otherwise. */
  answerDecision(input: {
    id: string;
    now: number;
    answeredBy: string;
    option: string;
    answerMessageId: string;
  }): Promise<boolean>;

  // join codes
  insertJoinCode(code: JoinCodeRecord): Promise<void>;
  findJoinCodeByHash(hash: string): Promise<JoinCodeRecord | null>;
  listJoinCodes(podId: string): Promise<JoinCodeRecord[]>;
  /** Marks it used iff unused (single use, race-safe); false otherwise. */
  /** Ends (expiresAt = now) this human's unused, unexpired join codes of this pod; the count ended. */
  expireJoinCodesCreatedBy(input: { userId: string; podId: string; now: number }): Promise<number>;
  markJoinCodeUsed(input: { id: string; now: number; installationId: string }): Promise<boolean>;
}
