import { StoreConflictError, StoreUnavailableError } from "../contract.js";
const UNIQUE_VIOLATION = "23505";
/** Socket-level failures: the server is down, restarting or unreachable. */
const NET_CODES = new Set([
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "EPIPE",
    "ENOTFOUND",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "EAI_AGAIN",
]);
/**
 * SQLSTATEs of an outage rather than a fault: class 08 (connection exception), 57P01–57P03 (admin/crash
 * shutdown, cannot connect now), 53xxx (insufficient resources: disk full, out of memory, too many
 * connections), 58030 (I/O error).
 */
const OUTAGE_STATE = /^(08|53|57P0[123]$|58030$)/;
/** pg's own messages for a connection that broke or never came (they carry no code). */
const OUTAGE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended|the database system is (starting up|shutting down|in recovery mode)/i;
/** True when `err` means "the database cannot be reached now", not a fault of the statement. */
export function isOutage(err) {
    if (err instanceof StoreUnavailableError)
        return true;
    const e = err;
    if (!e)
        return false;
    const code = typeof e.code === "string" ? e.code : "";
    return NET_CODES.has(code) || OUTAGE_STATE.test(code) || OUTAGE_MESSAGE.test(String(e.message ?? ""));
}
/** `err` as the contract reports it: an outage becomes StoreUnavailableError, anything else unchanged. */
export function storeError(err) {
    return err instanceof StoreUnavailableError || !isOutage(err) ? err : new StoreUnavailableError(err);
}
/** text, varchar, bpchar, name */
const TEXT_TYPES = new Set([25, 1043, 1042, 19]);
const ESC = "\uFFFF";
export function encodeText(s) {
    // ESC is doubled first, so the ESC that stands in for U+0000 is not doubled with it.
    return s.includes("\u0000") || s.includes(ESC)
        ? s.replaceAll(ESC, ESC + ESC).replaceAll("\u0000", `${ESC}0`)
        : s;
}
export function decodeText(s) {
    return s.includes(ESC)
        ? s.replace(/\uFFFF([\uFFFF0])/g, (_, c) => (c === "0" ? "\u0000" : ESC))
        : s;
}
const encodeParam = (v) => typeof v === "string" ? encodeText(v) : Array.isArray(v) ? v.map(encodeParam) : v;
export async function runQuery(runner, text, values, name) {
    const params = values?.map(encodeParam);
    let res;
    try {
        res = await runner.query(name ? { name, text, values: params } : { text, values: params });
    }
    catch (err) {
        if (err.code === UNIQUE_VIOLATION) {
            throw new StoreConflictError(err.message);
        }
        throw storeError(err);
    }
    // A column named `*_json` is a JSON value's stored text (json cast to text): JSON.stringify wrote it, so it
    // never holds U+0000, and any U+FFFF in it is the data's own, not this module's escape.
    const textColumns = res.fields
        .filter((f) => TEXT_TYPES.has(f.dataTypeID) && !f.name.endsWith("_json"))
        .map((f) => f.name);
    if (textColumns.length > 0) {
        for (const row of res.rows) {
            for (const c of textColumns) {
                const v = row[c];
                if (typeof v === "string" && v.includes(ESC))
                    row[c] = decodeText(v);
            }
        }
    }
    return res.rows;
}
/** A `json` parameter: sent as its exact text (pg calls toPostgres), never escaped like a text parameter. */
class JsonText {
    text;
    constructor(text) {
        this.text = text;
    }
    toPostgres() {
        return this.text;
    }
}
/** JSON for a `json` column: the exact text, so values round-trip verbatim. `undefined` is stored as null. */
export function json(value) {
    return new JsonText(JSON.stringify(value ?? null));
}
/** Nullable JSON: SQL NULL for null/undefined. */
export function jsonOrNull(value) {
    return value === null || value === undefined ? null : new JsonText(JSON.stringify(value));
}
//# sourceMappingURL=db.js.map