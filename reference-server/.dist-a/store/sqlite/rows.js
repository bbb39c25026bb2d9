/**
 * The SQLite store's row mappers (compiled from the row table, ../schema.ts).
 */
import { recordMappers } from "../rows.js";
export const { toUser, toUserToken, toPod, toMember, toRegistryAgent, toIdentity, toInstallation, toRuntimeToken, toEvent, toDeliveredEvent, toMessage, toMemory, toIdempotency, toDecision, toJoinCode, } = recordMappers("sqlite");
/** JSON for a TEXT column; null for null/undefined. */
export const json = (v) => (v === undefined || v === null ? null : JSON.stringify(v));
/** JSON parameters as TEXT. */
export const JSON_TEXT = { json: (v) => JSON.stringify(v), jsonOrNull: json };
//# sourceMappingURL=rows.js.map