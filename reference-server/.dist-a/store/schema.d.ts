/**
 * The row table: for every record of records.ts, the columns it is stored in (same names in SQLite and
 * PostgreSQL), the record field each one fills and its kind. rows.ts compiles both dialects' row mappers
 * and column lists from it; the migrations of each dialect create these columns (a schema-parity test
 * reads both live schemas and this table, and fails on any difference).
 *
 * Must never: hold a column that only one dialect has, or a record field no column fills.
 */
import type { AgentIdentityRecord, DecisionRecord, EventRecord, IdempotencyRecord, InstallationRecord, JoinCodeRecord, MemberRecord, MemoryRecord, MessageRecord, PodRecord, RegistryAgentRecord, RuntimeTokenRecord, UserRecord, UserTokenRecord } from "./records.js";
/** How a value is stored: `time` is epoch ms (INTEGER / BIGINT), `json` is TEXT / json. */
export type Kind = "text" | "int" | "bool" | "json" | "time";
export interface Column {
    /** The column name, in both dialects. */
    name: string;
    /** The record field it fills: a property, or `outer.inner` for a nested object (installedBy.kind). */
    field: string;
    kind: Kind;
    nullable: boolean;
}
export interface Table<R = unknown> {
    name: string;
    columns: readonly Column[];
    /** Only for type inference of the record a mapper of this table returns. */
    readonly record?: R;
}
export declare const USERS: Table<UserRecord>;
export declare const USER_TOKENS: Table<UserTokenRecord>;
export declare const PODS: Table<PodRecord>;
export declare const MEMBERS: Table<MemberRecord>;
export declare const REGISTRY_AGENTS: Table<RegistryAgentRecord>;
export declare const AGENT_IDENTITIES: Table<AgentIdentityRecord>;
export declare const INSTALLATIONS: Table<InstallationRecord>;
export declare const RUNTIME_TOKENS: Table<RuntimeTokenRecord>;
/** An event: the queue row (`events`) and its payload, stored apart in `event_payloads` (migration 004). */
export declare const EVENTS: Table<EventRecord>;
/** The columns of EVENTS kept in `event_payloads`, keyed by the event's `seq`, instead of `events`. */
export declare const EVENT_PAYLOAD_COLUMNS: readonly string[];
/** An event row with its payload, in both dialects: `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS}` (alias `e`). */
export declare const EVENT_ROWS = "events e JOIN event_payloads p ON p.seq = e.seq";
export declare const EVENT_COLUMNS = "e.*, p.payload";
/** The same with the payload as its stored JSON text, for toDeliveredEvent (PostgreSQL casts it to text). */
export declare const DELIVERED_EVENT_COLUMNS: {
    readonly sqlite: "e.*, p.payload AS payload_json";
    readonly postgres: "e.*, p.payload::text AS payload_json";
};
export declare const MESSAGES: Table<MessageRecord>;
export declare const MEMORY: Table<MemoryRecord>;
export declare const IDEMPOTENCY_RECORDS: Table<IdempotencyRecord>;
export declare const DECISIONS: Table<DecisionRecord>;
export declare const JOIN_CODES: Table<JoinCodeRecord>;
/** Every record table, for the schema-parity test. */
export declare const TABLES: readonly Table[];
