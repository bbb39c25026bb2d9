export declare const ERROR_CODES: readonly ["auth_required", "token_malformed", "token_unknown", "token_revoked", "not_installed", "event_not_found", "route_not_found", "lease_lost", "validation_failed", "malformed_json", "unknown_memory_section", "message_not_in_pod", "content_too_large", "body_too_large", "unsupported_media_type", "idempotency_key_reused", "rate_limited", "internal_error", "unavailable", "store_unavailable", "forbidden", "user_not_found", "pod_not_found", "agent_not_found", "installation_not_found", "runtime_token_not_found", "decision_not_found", "already_installed", "decision_already_answered", "invalid_decision_option", "event_not_failed", "agent_name_taken", "join_code_invalid", "join_code_used", "join_code_expired"];
export type ErrorCode = (typeof ERROR_CODES)[number];
export interface RegistryEntry {
    code: string;
    status: number;
    surface: "cap" | "admin";
    message: string;
    description?: string;
}
/** The registry as spec/errors.yaml declares it (read from the @commonly/cap-spec package). */
export declare function loadErrorRegistry(): Map<string, RegistryEntry>;
export declare function errorEntry(code: ErrorCode): RegistryEntry;
export declare class KernelError extends Error {
    readonly code: ErrorCode;
    readonly details?: Record<string, unknown> | undefined;
    readonly headers?: Record<string, string> | undefined;
    readonly name = "KernelError";
    readonly status: number;
    constructor(code: ErrorCode, message?: string, details?: Record<string, unknown> | undefined, headers?: Record<string, string> | undefined);
}
/** Throw the registry error `code`. */
export declare function fail(code: ErrorCode, message?: string, details?: Record<string, unknown>): never;
