/**
 * Canonical JSON (RFC 8785 / JCS for the values JSON parsing produces): object keys sorted by UTF-16 code
 * units at every depth, no whitespace, strings and numbers as JSON.stringify writes them, array order kept.
 * Used for the memory sync dedup key (CAP-MEM-15) and Idempotency-Key request equality.
 */
export function canonicalJson(value) {
    if (value === null || typeof value !== "object")
        return JSON.stringify(value ?? null);
    if (Array.isArray(value))
        return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
    const obj = value;
    const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}
//# sourceMappingURL=canonical-json.js.map