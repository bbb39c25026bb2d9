/**
 * The agent's local log: one JSON object per line in `logs/<name>-<YYYY-MM-DD>.log` (UTC day),
 * which `commonly agent logs` tails — reading the log must never touch the kernel's queue, as the
 * production `logs` command did. Logs stay on the machine (ADR-005: no telemetry).
 *
 * Secrets never reach the file: runtime and user tokens, Bearer credentials, and the values of
 * token-like keys are replaced by "[redacted]" in every string, at any depth. Lines are appended
 * synchronously so the last line before a crash is on disk.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { agentPaths } from "./home.js";

export const REDACTED = "[redacted]";

// Bearer first, so "Bearer cm_agent_…" becomes one "[redacted]" rather than "Bearer [redacted]".
const SECRET_PATTERNS: readonly RegExp[] = [
  /Bearer\s+[A-Za-z0-9._~+/=-]+/gi,
  /cm_(?:agent|user)_[A-Za-z0-9_-]+/g,
];

const SECRET_KEYS = /token|authorization|secret|password|api[-_]?key|cookie/i;

export function redactText(text: string): string {
  return SECRET_PATTERNS.reduce((s, re) => s.replace(re, REDACTED), text);
}

/** A deep copy of `value` with secrets replaced; cycles become "[circular]". */
export function redact(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === "string") return redactText(value);
  if (value instanceof Error) {
    return redact(
      { name: value.name, message: value.message, ...(value as unknown as Record<string, unknown>) },
      seen,
    );
  }
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEYS.test(k) && typeof v === "string" && v !== "" ? REDACTED : redact(v, seen);
  }
  return out;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogEntry {
  ts: string;
  level: LogLevel;
  agent: string;
  msg: string;
  [field: string]: unknown;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** The file lines go to at `date` (default now). */
  file(date?: Date): string;
}

export interface LoggerOptions {
  home: string;
  agentName: string;
  clock?: () => Date;
  /** Also receives every (already redacted) entry, e.g. for terminal output. */
  sink?: (entry: LogEntry) => void;
}

export function createLogger({ home, agentName, clock = () => new Date(), sink }: LoggerOptions): Logger {
  const paths = agentPaths(home, agentName);
  const write = (level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void => {
    const now = clock();
    const entry = redact({ ...fields, ts: now.toISOString(), level, agent: agentName, msg }) as LogEntry;
    const file = paths.log(now);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    sink?.(entry);
  };
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
    file: (date = clock()) => paths.log(date),
  };
}
