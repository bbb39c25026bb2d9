const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
function table() {
    return (name, spec) => ({
        name,
        columns: Object.entries(spec).map(([column, s]) => {
            const [kind, field] = Array.isArray(s) ? s : [s, camel(column)];
            return {
                name: column,
                field,
                kind: kind.replace("?", ""),
                nullable: kind.endsWith("?"),
            };
        }),
    });
}
export const USERS = table()("users", {
    id: "text",
    name: "text",
    is_admin: "bool",
    created_at: "time",
    deleted_at: "time?",
});
export const USER_TOKENS = table()("user_tokens", {
    id: "text",
    user_id: "text",
    hash: "text",
    label: "text?",
    created_at: "time",
    revoked_at: "time?",
});
export const PODS = table()("pods", {
    id: "text",
    name: "text",
    created_by: "text",
    created_at: "time",
});
export const MEMBERS = table()("members", {
    pod_id: "text",
    user_id: "text",
    role: "text",
    added_at: "time",
});
export const REGISTRY_AGENTS = table()("registry_agents", {
    name: "text",
    manifest: "json",
    published_by: "text",
    created_at: "time",
    updated_at: "time",
});
export const AGENT_IDENTITIES = table()("agent_identities", {
    id: "text",
    agent_name: "text",
    instance_id: "text",
    created_at: "time",
});
export const INSTALLATIONS = table()("installations", {
    id: "text",
    agent_id: "text",
    agent_name: "text",
    instance_id: "text",
    pod_id: "text",
    scopes: "json",
    message_posted: "bool",
    installed_by_kind: ["text", "installedBy.kind"],
    installed_by_id: ["text", "installedBy.id"],
    authorized_by: "text",
    status: "text",
    created_at: "time",
    uninstalled_at: "time?",
    uninstalled_by: "text?",
});
export const RUNTIME_TOKENS = table()("runtime_tokens", {
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
export const EVENTS = table()("events", {
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
});
/** The columns of EVENTS kept in `event_payloads`, keyed by the event's `seq`, instead of `events`. */
export const EVENT_PAYLOAD_COLUMNS = ["payload"];
/** An event row with its payload, in both dialects: `SELECT ${EVENT_COLUMNS} FROM ${EVENT_ROWS}` (alias `e`). */
export const EVENT_ROWS = "events e JOIN event_payloads p ON p.seq = e.seq";
export const EVENT_COLUMNS = "e.*, p.payload";
/** The same with the payload as its stored JSON text, for toDeliveredEvent (PostgreSQL casts it to text). */
export const DELIVERED_EVENT_COLUMNS = {
    sqlite: "e.*, p.payload AS payload_json",
    postgres: "e.*, p.payload::text AS payload_json",
};
export const MESSAGES = table()("messages", {
    id: "text",
    pod_id: "text",
    content: "text",
    author_kind: ["text", "author.kind"],
    author_id: ["text", "author.id"],
    author_name: ["text", "author.name"],
    reply_to_message_id: "text?",
    metadata: "json?",
    created_at: "time",
});
export const MEMORY = table()("memory", {
    agent_id: "text",
    content: "text",
    sections: "json",
    source_runtime: "text?",
    sync_key: "text?",
    updated_at: "time",
});
export const IDEMPOTENCY_RECORDS = table()("idempotency_records", {
    agent_id: "text",
    key: "text",
    request_hash: "text",
    pod_id: "text",
    status: "int",
    body: "json",
    created_at: "time",
});
export const DECISIONS = table()("decisions", {
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
export const JOIN_CODES = table()("join_codes", {
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
export const TABLES = [
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
//# sourceMappingURL=schema.js.map