/**
 * The small runtime the PostgreSQL operations are written against: run a statement on the pool or on the
 * client of the current transaction, map unique violations to StoreConflictError, and record which agents
 * to wake once the write has committed.
 *
 * Must never: run a statement outside the transaction it was handed (a finished transaction's `Db`
 * refuses), or call the wake-up listeners before the write they announce has committed.
 */
import type pg from "pg";
import { StoreConflictError } from "../contract.js";

export type Row = Record<string, unknown>;

export interface Db {
  /** Runs one statement; a `name` makes it a prepared statement (planned once per connection). */
  query<R extends Row = Row>(text: string, values?: unknown[], name?: string): Promise<R[]>;
  /** Announce "these agents may have ready events" after the current write commits (local listeners). */
  wake(agentIds: Iterable<string>): void;
  /** The NOTIFY channel of this store's schema and the payload prefix that marks our own notifications. */
  readonly channel: string;
  readonly origin: string;
}

const UNIQUE_VIOLATION = "23505";

export async function runQuery<R extends Row>(
  runner: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[] | undefined,
  name: string | undefined,
): Promise<R[]> {
  try {
    const res = await runner.query<R>(name ? { name, text, values } : { text, values });
    return res.rows;
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
      throw new StoreConflictError((err as Error).message);
    }
    throw err;
  }
}

/** JSON for a `json` column: the exact text, so values round-trip verbatim. `undefined` is stored as null. */
export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** Nullable JSON: SQL NULL for null/undefined. */
export function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
