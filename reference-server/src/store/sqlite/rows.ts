/**
 * The SQLite store's row mappers (compiled from the row table, ../schema.ts) and the event join: an
 * event's payload is stored apart in event_payloads (migrations/004).
 */
import { recordMappers } from "../rows.js";

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
  toMessage,
  toMemory,
  toIdempotency,
  toDecision,
  toJoinCode,
} = recordMappers("sqlite");

/** `FROM ${EVENTS}` selecting `${EVENT_COLUMNS}`: an event row with its payload; events is aliased `e`. */
export const EVENTS = "events e JOIN event_payloads p ON p.seq = e.seq";
export const EVENT_COLUMNS = "e.*, p.payload";

/** JSON for a TEXT column; null for null/undefined. */
export const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
