/**
 * The row table: for every record of records.ts, the columns it is stored in (same names in SQLite and
 * PostgreSQL), the record field each one fills and its kind. rows.ts compiles both dialects' row mappers
 * and column lists from it; the migrations of each dialect create these columns (a schema-parity test
 * reads both live schemas and this table, and fails on any difference).
 *
 * Must never: hold a column that only one dialect has, or a record field no column fills.
 */
import type {
  AgentIdentityRecord,
  DecisionRecord,
  EventRecord,
  IdempotencyRecord,
  InstallationRecord,
  JoinCodeRecord,
  MemberRecord,
  MemoryRecord,
  MessageRecord,
  PodRecord,
  RegistryAgentRecord,
  RuntimeTokenRecord,
  UserRecord,
  UserTokenRecord,
} from "./records.js";

/** How a value is stored: `time` is epoch ms (INTEGER / BIGINT), `json` is TEXT / json. */
export type Kind = "text" | "int" | "bool" | "json" | "time";
type KindSpec = Kind | `${Kind}?`;

export interface Column {
  /** The column name, in both dialects. */
  name: string;
  /** The record field it fills: a property, or `outer.inner` for a nested object (installedBy.kind). */
  field: string;
  kind: Kind;
  nullable: boolean;
}

export interface Table<R = unknown> {
  name: string;
  columns: readonly Column[];
  /** Only for type inference of the record a mapper of this table returns. */
  readonly record?: R;
}

type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type FieldOf<R> = (keyof R & string) | `${keyof R & string}.${string}`;
/** A column whose camelCase name is a field of the record gives just its kind; any other names its field. */
type ColumnSpec<R, C extends string> =
  Camel<C> extends keyof R ? KindSpec | [KindSpec, FieldOf<R>] : [KindSpec, FieldOf<R>];

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function table<R>() {
  return <S extends Record<string, unknown>>(
    name: string,
    spec: { [C in keyof S & string]: ColumnSpec<R, C> },
  ): Table<R> => ({
    name,
    columns: Object.entries(spec as Record<string, KindSpec | [KindSpec, string]>).map(([column, s]) => {
      const [kind, field] = Array.isArray(s) ? s : [s, camel(column)];
      return {
        name: column,
        field,
        kind: kind.replace("?", "") as Kind,
        nullable: kind.endsWith("?"),
      };
    }),
  });
}

export const USERS = table<UserRecord>()("users", {
  id: "text",
  name: "text",
  is_admin: "bool",
  created_at: "time",
  deleted_at: "time?",
});

export const USER_TOKENS = table<UserTokenRecord>()("user_tokens", {
  id: "text",
  user_id: "text",
  hash: "text",
  label: "text?",
  created_at: "time",
  revoked_at: "time?",
});

export const PODS = table<PodRecord>()("pods", {
  id: "text",
  name: "text",
  created_by: "text",
  created_at: "time",
});

export const MEMBERS = table<MemberRecord>()("members", {
  pod_id: "text",
  user_id: "text",
  role: "text",
  added_at: "time",
});

export const REGISTRY_AGENTS = table<RegistryAgentRecord>()("registry_agents", {
  name: "text",
  manifest: "json",
  published_by: "text",
  created_at: "time",
  updated_at: "time",
});

export const AGENT_IDENTITIES = table<AgentIdentityRecord>()("agent_identities", {
  id: "text",
  agent_name: "text",
  instance_id: "text",
  created_at: "time",
  owner_id: "text?",
});

export const INSTALLATIONS = table<InstallationRecord>()("installations", {
  id: "text",
  agent_id: "text",
  agent_name: "text",
  instance_id: "text",
  pod_id: "text",
  scopes: "json",
  message_posted: "bool",
  double_texting: "text",
  installed_by_kind: ["text", "installedBy.kind"],
  installed_by_id: ["text", "installedBy.id"],
  authorized_by: "text",
  status: "text",
  created_at: "time",
  uninstalled_at: "time?",
  uninstalled_by: "text?",
});

export const RUNTIME_TOKENS = table<RuntimeTokenRecord>()("runtime_tokens", {
  id: "text",
  hash: "text",
  agent_id: "text",
  installation_id: "text",
  pod_id: "text",
  issued_by: "text",
  label: "text?",
  created_at: "time",
  last_used_at: "time?",
  revoked_at: "time?",
});

/** An event: the queue row (`events`) and its payload, stored apart in `event_payloads` (migration 004). */
export const EVENTS = table<EventRecord>()("events", {
  id: "text",
  agent_id: "text",
  pod_id: "text",
  type: "text",
  payload: "json",
  state: "text",
  attempts: "int",
  attempt_base: "int",
  created_at: "time",
  lease_expires_at: "time?",
  acked_at: "time?",
  result: "json?",
  failed_at: "time?",
  fail_reason: "text?",
  release_attempts: ["int?", "releasedAttempts"],
  release_reason: "text?",
  available_at: "time?",
  cancel_reason: "text?",
  cancelled_at: "time?",
  cancelled_by_kind: "text?",
  cancelled_by_id: "text?",
  cancelled_attempts: "int?",
  supersedes: "json?",
  traceparent: "text?",
  tracestate: "text?",
});

/** The columns of EVENTS kept in `event_payloads`, keyed by the event's `seq`, instead of `events`. */
export const EVENT_PAYLOAD_COLUMNS: readonly string[] = ["payload"];
/** An event row with its payload, in both dialects: `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS}` (alias `e`). */
export const EVENT_ROWS = "events e JOIN event_payloads p ON p.seq = e.seq";
export const EVENT_COLUMNS = "e.*, p.payload";
/** The same with the payload as its stored JSON text, for toDeliveredEvent (PostgreSQL casts it to text). */
export const DELIVERED_EVENT_COLUMNS = {
  sqlite: "e.*, p.payload AS payload_json",
  postgres: "e.*, p.payload::text AS payload_json",
} as const;

export const MESSAGES = table<MessageRecord>()("messages", {
  id: "text",
  pod_id: "text",
  content: "text",
  author_kind: ["text", "author.kind"],
  author_id: ["text", "author.id"],
  author_name: ["text", "author.name"],
  reply_to_message_id: "text?",
  metadata: "json?",
  created_at: "time",
  traceparent: "text?",
  tracestate: "text?",
});

export const MEMORY = table<MemoryRecord>()("memory", {
  agent_id: "text",
  content: "text",
  sections: "json",
  source_runtime: "text?",
  sync_key: "text?",
  updated_at: "time",
});

export const IDEMPOTENCY_RECORDS = table<IdempotencyRecord>()("idempotency_records", {
  agent_id: "text",
  key: "text",
  request_hash: "text",
  pod_id: "text",
  status: "int",
  body: "json",
  created_at: "time",
});

export const DECISIONS = table<DecisionRecord>()("decisions", {
  id: "text",
  pod_id: "text",
  agent_id: "text",
  message_id: "text",
  decision_class: "text",
  title: "text",
  question: "text",
  options: "json",
  thread_root_id: "text?",
  context: "text?",
  created_at: "time",
  answered_at: "time?",
  answered_by: "text?",
  answer_option: "text?",
  answer_message_id: "text?",
});

export const JOIN_CODES = table<JoinCodeRecord>()("join_codes", {
  id: "text",
  hash: "text",
  pod_id: "text",
  agent_name: "text?",
  scopes: "json",
  created_by: "text",
  created_at: "time",
  expires_at: "time",
  used_at: "time?",
  used_by_installation_id: "text?",
});

/** Every record table, for the schema-parity test. */
export const TABLES: readonly Table[] = [
  USERS,
  USER_TOKENS,
  PODS,
  MEMBERS,
  REGISTRY_AGENTS,
  AGENT_IDENTITIES,
  INSTALLATIONS,
  RUNTIME_TOKENS,
  EVENTS,
  MESSAGES,
  MEMORY,
  IDEMPOTENCY_RECORDS,
  DECISIONS,
  JOIN_CODES,
];
