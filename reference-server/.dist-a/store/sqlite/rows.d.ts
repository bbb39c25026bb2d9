/**
 * The SQLite store's row mappers (compiled from the row table, ../schema.ts).
 */
import { type JsonCodec } from "../rows.js";
export type { Row } from "../rows.js";
export declare const toUser: (row: import("../rows.js").Row) => import("../records.js").UserRecord, toUserToken: (row: import("../rows.js").Row) => import("../records.js").UserTokenRecord, toPod: (row: import("../rows.js").Row) => import("../records.js").PodRecord, toMember: (row: import("../rows.js").Row) => import("../records.js").MemberRecord, toRegistryAgent: (row: import("../rows.js").Row) => import("../records.js").RegistryAgentRecord, toIdentity: (row: import("../rows.js").Row) => import("../records.js").AgentIdentityRecord, toInstallation: (row: import("../rows.js").Row) => import("../records.js").InstallationRecord, toRuntimeToken: (row: import("../rows.js").Row) => import("../records.js").RuntimeTokenRecord, toEvent: (row: import("../rows.js").Row) => import("../records.js").EventRecord, toDeliveredEvent: (row: import("../rows.js").Row) => import("../records.js").DeliveredEvent, toMessage: (row: import("../rows.js").Row) => import("../records.js").MessageRecord, toMemory: (row: import("../rows.js").Row) => import("../records.js").MemoryRecord, toIdempotency: (row: import("../rows.js").Row) => import("../records.js").IdempotencyRecord, toDecision: (row: import("../rows.js").Row) => import("../records.js").DecisionRecord, toJoinCode: (row: import("../rows.js").Row) => import("../records.js").JoinCodeRecord;
/** JSON for a TEXT column; null for null/undefined. */
export declare const json: (v: unknown) => string | null;
/** JSON parameters as TEXT. */
export declare const JSON_TEXT: JsonCodec;
