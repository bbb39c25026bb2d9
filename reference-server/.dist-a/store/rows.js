import { AGENT_IDENTITIES, DECISIONS, EVENTS, IDEMPOTENCY_RECORDS, INSTALLATIONS, JOIN_CODES, MEMBERS, MEMORY, MESSAGES, PODS, REGISTRY_AGENTS, RUNTIME_TOKENS, USER_TOKENS, USERS, } from "./schema.js";
const parse = (v) => v === null || v === undefined ? null : JSON.parse(v);
/** The JS expression that decodes `raw` (an expression reading the stored value) into the record's value. */
function decode(c, dialect, raw) {
    if (dialect === "sqlite" && c.kind === "bool")
        return `${raw} === 1`;
    if (dialect === "sqlite" && c.kind === "json")
        return c.nullable ? `parse(${raw})` : `JSON.parse(${raw})`;
    return c.nullable ? `(${raw} ?? null)` : raw;
}
/** `{ "id": <expr>, "installedBy": { "kind": <expr>, … }, … }` in column order. */
function literal(tree) {
    const parts = [...tree].map(([k, v]) => `${JSON.stringify(k)}: ${typeof v === "string" ? v : literal(v)}`);
    return `{ ${parts.join(", ")} }`;
}
/** The column a row mapper reads a stored-JSON column's text from. */
export const storedJsonColumn = (name) => `${name}_json`;
function compile(table, dialect, params, read, options = {}) {
    const tree = new Map();
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
        node.set(path[path.length - 1], decode(c, dialect, read(c)));
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
export function rowMapper(table, dialect, prefix = "") {
    return compile(table, dialect, ["r"], (c) => `r[${JSON.stringify(prefix + c.name)}]`);
}
/** rowMapper for records handed out with one JSON column as its stored text (MapperOptions.storedJson). */
export function storedJsonRowMapper(table, dialect, storedJson) {
    const name = (c) => (c.name === storedJson ? storedJsonColumn(c.name) : c.name);
    return compile(table, dialect, ["r"], (c) => `r[${JSON.stringify(name(c))}]`, { storedJson });
}
/**
 * Maps a row array (better-sqlite3 `.raw()`) whose values are the columns `selected`, in that order, to
 * the table's record; the fields of the columns in `given` are passed after the row instead (values the
 * caller knows already, or read apart), decoded like a stored value. Every column of the table must be in
 * one of the two lists.
 */
export function arrayMapper(table, dialect, selected, given, options = {}) {
    const args = given.map((_, i) => `a${i}`);
    return compile(table, dialect, ["r", ...args], (c) => {
        const i = selected.indexOf(c.name);
        if (i >= 0)
            return `r[${i}]`;
        const g = given.indexOf(c.name);
        if (g < 0)
            throw new Error(`arrayMapper(${table.name}): column ${c.name} is neither selected nor given`);
        return `a${g}`;
    }, options);
}
/** The table's record columns, in row-table order. */
export function columnNames(table, except = []) {
    return table.columns.map((c) => c.name).filter((n) => !except.includes(n));
}
/** `alias.col AS alias_col, …` for every record column: rowMapper(table, dialect, `${alias}_`) reads it. */
export function selectList(table, alias) {
    return table.columns.map((c) => `${alias}.${c.name} AS ${alias}_${c.name}`).join(", ");
}
/** Every record's mapper for one dialect; call once, at module load. */
export function recordMappers(dialect) {
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
        toDeliveredEvent: storedJsonRowMapper(EVENTS, dialect, "payload"),
        toMessage: rowMapper(MESSAGES, dialect),
        toMemory: rowMapper(MEMORY, dialect),
        toIdempotency: rowMapper(IDEMPOTENCY_RECORDS, dialect),
        toDecision: rowMapper(DECISIONS, dialect),
        toJoinCode: rowMapper(JOIN_CODES, dialect),
    };
}
/** An insert of every record column of `table`, its parameters encoded for the dialect (compiled once). */
export function insertInto(table, dialect, codec, suffix = "") {
    const names = table.columns.map((c) => c.name);
    const params = table.columns.map((c, i) => dialect === "sqlite" ? "?" : `$${i + 1}${c.kind === "json" ? "::json" : ""}`);
    const encoded = table.columns.map((c) => {
        const v = `r${c.field
            .split(".")
            .map((k) => `[${JSON.stringify(k)}]`)
            .join("")}`;
        if (c.kind === "json")
            return c.nullable ? `jsonOrNull(${v})` : `json(${v})`;
        if (c.kind === "bool" && dialect === "sqlite")
            return `(${v} ? 1 : 0)`;
        return c.nullable ? `(${v} ?? null)` : v;
    });
    const source = `return function ${table.name}Values(r) { return [${encoded.join(", ")}]; };`;
    return {
        sql: `INSERT INTO ${table.name} (${names.join(", ")}) VALUES (${params.join(", ")})${suffix ? ` ${suffix}` : ""}`,
        values: new Function("json", "jsonOrNull", source)(codec.json, codec.jsonOrNull),
    };
}
//# sourceMappingURL=rows.js.map