/**
 * The SQLite store's row mappers (compiled from the row table, ../schema.ts).
 */
import { type JsonCodec, recordMappers } from "../rows.js";

export type { Row } from "../rows.js";

export const {
  toUser,
  toUserToken,
  toPod,
  toMember,
  toRegistryAgent,
  toIdentity,
  toInstallation,
  toRuntimeToken,
  toEvent,
  toDeliveredEvent,
  toMessage,
  toMemory,
  toIdempotency,
  toDecision,
  toJoinCode,
} = recordMappers("sqlite");

/** JSON for a TEXT column; null for null/undefined. */
export const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/** JSON parameters as TEXT. */
export const JSON_TEXT: JsonCodec = { json: (v) => JSON.stringify(v), jsonOrNull: json };
