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
import { StoreConflictError, StoreUnavailableError } from "../contract.js";
import type { ClaimFloors } from "./claim-floors.js";

export type Row = Record<string, unknown>;

export interface Db {
  /** Runs one statement; a `name` makes it a prepared statement (planned once per connection). */
  query<R extends Row = Row>(text: string, values?: unknown[], name?: string): Promise<R[]>;
  /** Announce "these agents may have ready events" after the current write commits (local listeners). */
  wake(agentIds: Iterable<string>): void;
  /** Announce "these events were cancelled" after the current write commits (local listeners). */
  cancelled(pairs: { agentId: string; eventId: string }[]): void;
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
const OUTAGE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended|the database system is (starting up|shutting down|in recovery mode)/i;

/** True when `err` means "the database cannot be reached now", not a fault of the statement. */
export function isOutage(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = typeof e.code === "string" ? e.code : "";
  return NET_CODES.has(code) || OUTAGE_STATE.test(code) || OUTAGE_MESSAGE.test(String(e.message ?? ""));
}

/** `err` as the contract reports it: an outage becomes StoreUnavailableError, anything else unchanged. */
export function storeError(err: unknown): unknown {
  return err instanceof StoreUnavailableError || !isOutage(err) ? err : new StoreUnavailableError(err);
}
/** text, varchar, bpchar, name */
const TEXT_TYPES = new Set([25, 1043, 1042, 19]);
const ESC = "\uFFFF";

export function encodeText(s: string): string {
  // ESC is doubled first, so the ESC that stands in for U+0000 is not doubled with it.
  return s.includes("\u0000") || s.includes(ESC)
    ? s.replaceAll(ESC, ESC + ESC).replaceAll("\u0000", `${ESC}0`)
    : s;
}

export function decodeText(s: string): string {
  return s.includes(ESC)
    ? s.replace(/\uFFFF([\uFFFF0])/g, (_, c: string) => (c === "0" ? "\u0000" : ESC))
    : s;
}

const encodeParam = (v: unknown): unknown =>
  typeof v === "string" ? encodeText(v) : Array.isArray(v) ? v.map(encodeParam) : v;

export async function runQuery<R extends Row>(
  runner: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[] | undefined,
  name: string | undefined,
): Promise<R[]> {
  const params = values?.map(encodeParam);
  let res: pg.QueryResult<R>;
  try {
    res = await runner.query<R>(name ? { name, text, values: params } : { text, values: params });
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
      throw new StoreConflictError((err as Error).message);
    }
    throw storeError(err);
  }
  // A column named `*_json` is a JSON value's stored text (json cast to text): JSON.stringify wrote it, so it
  // never holds U+0000, and any U+FFFF in it is the data's own, not this module's escape.
  const textColumns = res.fields
    .filter((f) => TEXT_TYPES.has(f.dataTypeID) && !f.name.endsWith("_json"))
    .map((f) => f.name);
  if (textColumns.length > 0) {
    for (const row of res.rows as Row[]) {
      for (const c of textColumns) {
        const v = row[c];
        if (typeof v === "string" && v.includes(ESC)) row[c] = decodeText(v);
      }
    }
  }
  return res.rows;
}

/** A `json` parameter: sent as its exact text (pg calls toPostgres), never escaped like a text parameter. */
class JsonText {
  constructor(private readonly text: string) {}
  toPostgres(): string {
    return this.text;
  }
}

/** JSON for a `json` column: the exact text, so values round-trip verbatim. `undefined` is stored as null. */
export function json(value: unknown): JsonText {
  return new JsonText(JSON.stringify(value ?? null));
}

/** Nullable JSON: SQL NULL for null/undefined. */
export function jsonOrNull(value: unknown): JsonText | null {
  return value === null || value === undefined ? null : new JsonText(JSON.stringify(value));
}
