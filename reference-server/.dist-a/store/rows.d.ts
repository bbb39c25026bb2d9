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
import type { DeliveredEvent } from "./records.js";
import type { Table } from "./schema.js";
export type Dialect = "sqlite" | "postgres";
export type Row = Record<string, any>;
export interface MapperOptions {
    /**
     * A JSON column handed out as the text the store holds: the record gets `<field>Json` (that text)
     * instead of `<field>` (DeliveredEvent). Its value is read from the column `<name>_json` (rowMapper) or
     * from its place in the row (arrayMapper); non-nullable top-level JSON columns only.
     */
    storedJson?: string;
}
/** The column a row mapper reads a stored-JSON column's text from. */
export declare const storedJsonColumn: (name: string) => string;
/**
 * Maps a row object (columns by name) to the table's record. `prefix`: the columns were selected as
 * `prefix + name` (joins that alias each table's columns, see selectList).
 */
export declare function rowMapper<R>(table: Table<R>, dialect: Dialect, prefix?: string): (row: Row) => R;
/** rowMapper for records handed out with one JSON column as its stored text (MapperOptions.storedJson). */
export declare function storedJsonRowMapper<R>(table: Table, dialect: Dialect, storedJson: string): (row: Row) => R;
/**
 * Maps a row array (better-sqlite3 `.raw()`) whose values are the columns `selected`, in that order, to
 * the table's record; the fields of the columns in `given` are passed after the row instead (values the
 * caller knows already, or read apart), decoded like a stored value. Every column of the table must be in
 * one of the two lists.
 */
export declare function arrayMapper<R>(table: Table<R>, dialect: Dialect, selected: readonly string[], given: readonly string[], options?: MapperOptions): (row: readonly unknown[], ...given: unknown[]) => R;
/** The table's record columns, in row-table order. */
export declare function columnNames(table: Table, except?: readonly string[]): string[];
/** `alias.col AS alias_col, …` for every record column: rowMapper(table, dialect, `${alias}_`) reads it. */
export declare function selectList(table: Table, alias: string): string;
/** Every record's mapper for one dialect; call once, at module load. */
export declare function recordMappers(dialect: Dialect): {
    toUser: (row: Row) => import("./records.js").UserRecord;
    toUserToken: (row: Row) => import("./records.js").UserTokenRecord;
    toPod: (row: Row) => import("./records.js").PodRecord;
    toMember: (row: Row) => import("./records.js").MemberRecord;
    toRegistryAgent: (row: Row) => import("./records.js").RegistryAgentRecord;
    toIdentity: (row: Row) => import("./records.js").AgentIdentityRecord;
    toInstallation: (row: Row) => import("./records.js").InstallationRecord;
    toRuntimeToken: (row: Row) => import("./records.js").RuntimeTokenRecord;
    toEvent: (row: Row) => import("./records.js").EventRecord;
    /** An event with its payload as the stored JSON text, selected as `payload_json` (DeliveredEvent). */
    toDeliveredEvent: (row: Row) => DeliveredEvent;
    toMessage: (row: Row) => import("./records.js").MessageRecord;
    toMemory: (row: Row) => import("./records.js").MemoryRecord;
    toIdempotency: (row: Row) => import("./records.js").IdempotencyRecord;
    toDecision: (row: Row) => import("./records.js").DecisionRecord;
    toJoinCode: (row: Row) => import("./records.js").JoinCodeRecord;
};
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
export declare function insertInto<R>(table: Table<R>, dialect: Dialect, codec: JsonCodec, suffix?: string): Insert<R>;
