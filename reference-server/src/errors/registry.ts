/**
 * The kernel's one error registry: every `{code, status, message}` comes from spec/errors.yaml (surface cap
 * and admin), loaded once. KernelError is what services throw; the HTTP layer turns it into the body
 * `{code, message, details?}` with the registry's status. Must never invent a code: ErrorCode lists exactly
 * the codes the kernel may send, and a test checks each exists in spec/errors.yaml with this status.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse } from "yaml";

export const ERROR_CODES = [
  "auth_required",
  "token_malformed",
  "token_unknown",
  "token_revoked",
  "not_installed",
  "event_not_found",
  "route_not_found",
  "lease_lost",
  "validation_failed",
  "malformed_json",
  "unknown_memory_section",
  "message_not_in_pod",
  "content_too_large",
  "body_too_large",
  "unsupported_media_type",
  "idempotency_key_reused",
  "rate_limited",
  "json_too_deep",
  "malformed_url",
  "memory_too_large",
  "headers_too_large",
  "malformed_request",
  "request_timeout",
  "too_many_long_polls",
  "too_many_connections",
  "internal_error",
  "unavailable",
  "store_unavailable",
  // admin surface
  "forbidden",
  "user_not_found",
  "pod_not_found",
  "agent_not_found",
  "installation_not_found",
  "runtime_token_not_found",
  "decision_not_found",
  "message_not_found",
  "already_installed",
  "decision_already_answered",
  "invalid_decision_option",
  "event_not_failed",
  "agent_name_taken",
  "join_code_invalid",
  "join_code_used",
  "join_code_expired",
  "identity_not_owned",
  "identity_exists",
  "manifest_too_large",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface RegistryEntry {
  code: string;
  status: number;
  surface: "cap" | "admin";
  message: string;
  description?: string;
}

let cache: Map<string, RegistryEntry> | null = null;

/** The registry as spec/errors.yaml declares it (read from the @commonly/cap-spec package). */
export function loadErrorRegistry(): Map<string, RegistryEntry> {
  if (cache) return cache;
  const file = createRequire(import.meta.url).resolve("@commonly/cap-spec/errors.yaml");
  const entries = parse(readFileSync(file, "utf8")) as RegistryEntry[];
  cache = new Map(entries.map((e) => [e.code, e]));
  return cache;
}

export function errorEntry(code: ErrorCode): RegistryEntry {
  const entry = loadErrorRegistry().get(code);
  if (!entry) throw new Error(`error code ${code} is not in spec/errors.yaml`);
  return entry;
}

export class KernelError extends Error {
  override readonly name = "KernelError";
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    const entry = errorEntry(code);
    super(message ?? entry.message);
    this.status = entry.status;
  }
}

/** Throw the registry error `code`. */
export function fail(code: ErrorCode, message?: string, details?: Record<string, unknown>): never {
  throw new KernelError(code, message, details);
}
