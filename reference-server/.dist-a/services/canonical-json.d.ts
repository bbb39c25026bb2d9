/**
 * Canonical JSON (RFC 8785 / JCS for the values JSON parsing produces): object keys sorted by UTF-16 code
 * units at every depth, no whitespace, strings and numbers as JSON.stringify writes them, array order kept.
 * Used for the memory sync dedup key (CAP-MEM-15) and Idempotency-Key request equality.
 */
export declare function canonicalJson(value: unknown): string;
