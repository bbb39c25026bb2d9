/**
 * Row mappers and column lists, compiled from the row table (schema.ts) for one dialect. A mapper is
 * generated source — one object literal naming every field, as a hand-written mapper would — compiled
 * once when the store module loads, so mapping a row costs the record's allocation and nothing more (no
 * walk over the column list per row).
 *
 * Dialects differ only in decoding: SQLite keeps booleans as 0/1 and JSON as TEXT; PostgreSQL's driver
 * already returns booleans, parsed `json` and (its type parser) BIGINT as numbers.
 *
 * Must never: build a mapper per call (module load only), or reshape values beyond decoding.
 */
import type { EventTransition } from "./contract/events.js";
import type { DeliveredEvent } from "./records.js";
import type { Column, Table } from "./schema.js";
import {
  AGENT_IDENTITIES,
  DECISIONS,
  EVENTS,
  IDEMPOTENCY_RECORDS,
  INSTALLATIONS,
  JOIN_CODES,
  MEMBERS,
  MEMORY,
  MESSAGES,
  PODS,
  REGISTRY_AGENTS,
  RUNTIME_TOKENS,
  USER_TOKENS,
  USERS,
} from "./schema.js";

export type Dialect = "sqlite" | "postgres";

// biome-ignore lint/suspicious/noExplicitAny: rows come untyped from both drivers
export type Row = Record<string, any>;

const parse = (v: string | null | undefined): unknown =>
  v === null || v === undefined ? null : JSON.parse(v);

/** The JS expression that decodes `raw` (an expression reading the stored value) into the record's value. */
function decode(c: Column, dialect: Dialect, raw: string): string {
  if (dialect === "sqlite" && c.kind === "bool") return `${raw} === 1`;
  if (dialect === "sqlite" && c.kind === "json") return c.nullable ? `parse(${raw})` : `JSON.parse(${raw})`;
  return c.nullable ? `(${raw} ?? null)` : raw;
}

type Tree = Map<string, string | Tree>;

/** `{ "id": <expr>, "installedBy": { "kind": <expr>, … }, … }` in column order. */
function literal(tree: Tree): string {
  const parts = [...tree].map(([k, v]) => `${JSON.stringify(k)}: ${typeof v === "string" ? v : literal(v)}`);
  return `{ ${parts.join(", ")} }`;
}

export interface MapperOptions {
  /**
   * A JSON column handed out as the text the store holds: the record gets `<field>Json` (that text)
   * instead of `<field>` (DeliveredEvent). Its value is read from the column `<name>_json` (rowMapper) or
   * from its place in the row (arrayMapper); non-nullable top-level JSON columns only.
   */
  storedJson?: string;
}

/** The column a row mapper reads a stored-JSON column's text from. */
export const storedJsonColumn = (name: string) => `${name}_json`;

function compile(
  table: Table,
  dialect: Dialect,
  params: string[],
  read: (c: Column) => string,
  options: MapperOptions = {},
): (...args: never[]) => unknown {
  const tree: Tree = new Map();
  let stored = false;
  for (const c of table.columns) {
    const path = c.field.split(".");
    if (c.name === options.storedJson) {
      if (c.kind !== "json" || c.nullable || path.length !== 1)
        throw new Error(`storedJson: ${table.name}.${c.name} is not a non-nullable top-level JSON column`);
      tree.set(`${c.field}Json`, read(c));
      stored = true;
      continue;
    }
    let node = tree;
    for (const key of path.slice(0, -1)) {
      let next = node.get(key);
      if (typeof next !== "object") {
        next = new Map();
        node.set(key, next);
      }
      node = next;
    }
    node.set(path[path.length - 1] as string, decode(c, dialect, read(c)));
  }
  if (options.storedJson !== undefined && !stored)
    throw new Error(`storedJson: ${table.name} has no column ${options.storedJson}`);
  const source = `return function ${table.name}Row(${params.join(", ")}) { return ${literal(tree)}; };`;
  return new Function("parse", source)(parse);
}

/**
 * Maps a row object (columns by name) to the table's record. `prefix`: the columns were selected as
 * `prefix + name` (joins that alias each table's columns, see selectList).
 */
export function rowMapper<R>(table: Table<R>, dialect: Dialect, prefix = ""): (row: Row) => R {
  return compile(table, dialect, ["r"], (c) => `r[${JSON.stringify(prefix + c.name)}]`) as (row: Row) => R;
}

/** rowMapper for records handed out with one JSON column as its stored text (MapperOptions.storedJson). */
export function storedJsonRowMapper<R>(table: Table, dialect: Dialect, storedJson: string): (row: Row) => R {
  const name = (c: Column) => (c.name === storedJson ? storedJsonColumn(c.name) : c.name);
  return compile(table, dialect, ["r"], (c) => `r[${JSON.stringify(name(c))}]`, { storedJson }) as (
    row: Row,
  ) => R;
}

/**
 * Maps a row array (better-sqlite3 `.raw()`) whose values are the columns `selected`, in that order, to
 * the table's record; the fields of the columns in `given` are passed after the row instead (values the
 * caller knows already, or read apart), decoded like a stored value. Every column of the table must be in
 * one of the two lists.
 */
export function arrayMapper<R>(
  table: Table<R>,
  dialect: Dialect,
  selected: readonly string[],
  given: readonly string[],
  options: MapperOptions = {},
): (row: readonly unknown[], ...given: unknown[]) => R {
  const args = given.map((_, i) => `a${i}`);
  return compile(
    table,
    dialect,
    ["r", ...args],
    (c) => {
      const i = selected.indexOf(c.name);
      if (i >= 0) return `r[${i}]`;
      const g = given.indexOf(c.name);
      if (g < 0)
        throw new Error(`arrayMapper(${table.name}): column ${c.name} is neither selected nor given`);
      return `a${g}`;
    },
    options,
  ) as (row: readonly unknown[], ...given: unknown[]) => R;
}

/** The table's record columns, in row-table order. */
export function columnNames(table: Table, except: readonly string[] = []): string[] {
  return table.columns.map((c) => c.name).filter((n) => !except.includes(n));
}

/** `alias.col AS alias_col, …` for every record column: rowMapper(table, dialect, `${alias}_`) reads it. */
export function selectList(table: Table, alias: string): string {
  return table.columns.map((c) => `${alias}.${c.name} AS ${alias}_${c.name}`).join(", ");
}

/** Every record's mapper for one dialect; call once, at module load. */
export function recordMappers(dialect: Dialect) {
  return {
    toUser: rowMapper(USERS, dialect),
    toUserToken: rowMapper(USER_TOKENS, dialect),
    toPod: rowMapper(PODS, dialect),
    toMember: rowMapper(MEMBERS, dialect),
    toRegistryAgent: rowMapper(REGISTRY_AGENTS, dialect),
    toIdentity: rowMapper(AGENT_IDENTITIES, dialect),
    toInstallation: rowMapper(INSTALLATIONS, dialect),
    toRuntimeToken: rowMapper(RUNTIME_TOKENS, dialect),
    toEvent: rowMapper(EVENTS, dialect),
    /** An event with its payload as the stored JSON text, selected as `payload_json` (DeliveredEvent). */
    toDeliveredEvent: storedJsonRowMapper<DeliveredEvent>(EVENTS, dialect, "payload"),
    toMessage: rowMapper(MESSAGES, dialect),
    toMemory: rowMapper(MEMORY, dialect),
    toIdempotency: rowMapper(IDEMPOTENCY_RECORDS, dialect),
    toDecision: rowMapper(DECISIONS, dialect),
    toJoinCode: rowMapper(JOIN_CODES, dialect),
  };
}

/** How a dialect stores a JSON value given as a parameter (SQLite: TEXT; PostgreSQL: exact `json` text). */
export interface JsonCodec {
  json(value: unknown): unknown;
  jsonOrNull(value: unknown): unknown;
}

export interface Insert<R> {
  /** `INSERT INTO table (every record column) VALUES (…)` plus the suffix given (ON CONFLICT …). */
  sql: string;
  /** The statement's parameters from a record, in column order. */
  values(record: R): unknown[];
}

/** An insert of every record column of `table`, its parameters encoded for the dialect (compiled once). */
export function insertInto<R>(table: Table<R>, dialect: Dialect, codec: JsonCodec, suffix = ""): Insert<R> {
  const names = table.columns.map((c) => c.name);
  const params = table.columns.map((c, i) =>
    dialect === "sqlite" ? "?" : `$${i + 1}${c.kind === "json" ? "::json" : ""}`,
  );
  const encoded = table.columns.map((c) => {
    const v = `r${c.field
      .split(".")
      .map((k) => `[${JSON.stringify(k)}]`)
      .join("")}`;
    if (c.kind === "json") return c.nullable ? `jsonOrNull(${v})` : `json(${v})`;
    if (c.kind === "bool" && dialect === "sqlite") return `(${v} ? 1 : 0)`;
    return c.nullable ? `(${v} ?? null)` : v;
  });
  const source = `return function ${table.name}Values(r) { return [${encoded.join(", ")}]; };`;
  return {
    sql: `INSERT INTO ${table.name} (${names.join(", ")}) VALUES (${params.join(", ")})${suffix ? ` ${suffix}` : ""}`,
    values: new Function("json", "jsonOrNull", source)(codec.json, codec.jsonOrNull),
  };
}

const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** An event_history row joined with its event's id (`event_id`), in either dialect. */
export function toTransition(r: Row): EventTransition {
  return {
    eventId: r.event_id,
    kind: r.kind,
    at: Number(r.at),
    attempt: Number(r.attempt),
    leaseWas: numOrNull(r.lease_was),
    leaseExpiresAt: numOrNull(r.lease_expires_at),
    reason: r.reason ?? null,
    byKind: r.by_kind ?? null,
    byId: r.by_id ?? null,
  };
}
