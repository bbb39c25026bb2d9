/**
 * The PostgreSQL store's row mappers, compiled from the row table (../schema.ts). BIGINT columns arrive as
 * numbers (the pool's type parser, see index.ts) and `json` columns already parsed.
 */
import { recordMappers } from "../rows.js";
import { json, jsonOrNull } from "./db.js";
export const { toUser, toUserToken, toPod, toMember, toRegistryAgent, toIdentity, toInstallation, toRuntimeToken, toEvent, toDeliveredEvent, toMessage, toMemory, toIdempotency, toDecision, toJoinCode, } = recordMappers("postgres");
/** JSON parameters as their exact `json` text (db.ts). */
export const JSON_PARAMS = { json, jsonOrNull };
//# sourceMappingURL=rows.js.map