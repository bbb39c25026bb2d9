/**
 * The small runtime the PostgreSQL operations are written against: run a statement on the pool or on the
 * client of the current transaction, map unique violations to StoreConflictError and outages (connection
 * refused or lost, server restarting) to StoreUnavailableError, record which agents to
 * wake once the write has committed, and keep every JavaScript string storable.
 *
 * PostgreSQL `text` cannot hold U+0000, which is a valid character in a JSON string and in a decoded URL
 * path (`%00`). So that such input is stored (or simply not found) instead of failing as a fault, string
 * parameters are escaped on the way in and text columns unescaped on the way out: U+0000 → U+FFFF "0",
 * U+FFFF → U+FFFF U+FFFF (an injective mapping, so equality lookups still work). Strings without either
 * character — all of them in practice — pass through untouched. JSON values travel as `json` text
 * (JSON.stringify escapes U+0000) and are never rewritten.
 *
 * Must never: run a statement outside the transaction it was handed (a finished transaction's `Db`
 * refuses), or call the wake-up listeners before the write they announce has committed.
 */
import type pg from "pg";
import type { ClaimFloors } from "./claim-floors.js";
export type Row = Record<string, unknown>;
export interface Db {
    /** Runs one statement; a `name` makes it a prepared statement (planned once per connection). */
    query<R extends Row = Row>(text: string, values?: unknown[], name?: string): Promise<R[]>;
    /** Announce "these agents may have ready events" after the current write commits (local listeners). */
    wake(agentIds: Iterable<string>): void;
    /**
     * Announce "a token's authentication may have changed" (revoke, uninstall, user deletion): NOTIFY to the
     * other replicas on this statement's connection (delivered at commit); local listeners after commit,
     * and the store's op resolves only once every other replica has dropped its cache (auth-announce.ts).
     */
    authChanged(): Promise<void>;
    /** Where each agent's claim may start reading (claim-floors.ts); one per store, shared by its transactions. */
    readonly floors: ClaimFloors;
    /** The NOTIFY channel of this store's schema and the payload prefix that marks our own notifications. */
    readonly channel: string;
    readonly origin: string;
}
/** True when `err` means "the database cannot be reached now", not a fault of the statement. */
export declare function isOutage(err: unknown): boolean;
/** `err` as the contract reports it: an outage becomes StoreUnavailableError, anything else unchanged. */
export declare function storeError(err: unknown): unknown;
export declare function encodeText(s: string): string;
export declare function decodeText(s: string): string;
export declare function runQuery<R extends Row>(runner: pg.Pool | pg.PoolClient, text: string, values: unknown[] | undefined, name: string | undefined): Promise<R[]>;
/** A `json` parameter: sent as its exact text (pg calls toPostgres), never escaped like a text parameter. */
declare class JsonText {
    private readonly text;
    constructor(text: string);
    toPostgres(): string;
}
/** JSON for a `json` column: the exact text, so values round-trip verbatim. `undefined` is stored as null. */
export declare function json(value: unknown): JsonText;
/** Nullable JSON: SQL NULL for null/undefined. */
export declare function jsonOrNull(value: unknown): JsonText | null;
export {};
