import { existsSync } from "node:fs";
import { isProfileName, PROFILE_NAMES, type ProfileName } from "../profiles/names.js";
import { type LimitFlagValues, resolveLimitFlags } from "./limit-flags.js";

/**
 * Settings for every CLI command: a flag wins over its CAP_* environment variable, which wins over the
 * default. Numbers are validated here so a typo fails at start, not at the first request.
 */
export interface CommonFlags {
  db?: string;
  leaseSeconds?: string;
  maxAttempts?: string;
}

export interface ServeFlags extends CommonFlags, LimitFlagValues {
  port?: string;
  host?: string;
  logLevel?: string;
  profile?: string;
  maxConnections?: string;
  docsDir?: string;
  /** commander's --no-accelerate: false. */
  accelerate?: boolean;
}

export const DEFAULT_DB = "sqlite:.cap-kernel/kernel.db";
/** The demo's own store: `demo` starts it clean unless --keep (cli/demo.ts). */
export const DEMO_DB = "sqlite:.cap-kernel/demo.db";

const env = (name: string) => {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
};

/** CAP_ACCELERATE=0 (or false, off, no) turns the accelerators off. */
function isOff(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  if (/^(0|false|off|no)$/i.test(raw)) return true;
  if (/^(1|true|on|yes)$/i.test(raw)) return false;
  throw new Error(`CAP_ACCELERATE must be 1 or 0, got "${raw}"`);
}

function int(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

function optionalInt(name: string, raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : int(name, raw, 0, 1, Number.MAX_SAFE_INTEGER);
}

export function resolveCommon(flags: CommonFlags) {
  const db = flags.db ?? env("CAP_DB") ?? DEFAULT_DB;
  return {
    db,
    /** Where `db` came from, for errors that name it. */
    dbSource:
      flags.db !== undefined ? `--db ${db}` : env("CAP_DB") ? `CAP_DB=${db}` : `the default --db ${db}`,
    leaseSeconds: int("--lease-seconds", flags.leaseSeconds ?? env("CAP_LEASE_SECONDS"), 30, 1, 86_400),
    maxAttempts: int("--max-attempts", flags.maxAttempts ?? env("CAP_MAX_ATTEMPTS"), 5, 1, 1000),
  };
}

export function resolveServe(flags: ServeFlags) {
  return {
    ...resolveCommon(flags),
    port: int("--port", flags.port ?? env("CAP_PORT"), 7070, 0, 65_535),
    host: flags.host ?? env("CAP_HOST") ?? "127.0.0.1",
    logLevel: flags.logLevel ?? env("CAP_LOG_LEVEL") ?? "info",
    profile: profile(flags.profile ?? env("CAP_PROFILE")),
    /** Open connections the process accepts in all; undefined: its open-file limit less a reserve (serve.ts). */
    maxConnections: optionalInt("--max-connections", flags.maxConnections ?? env("CAP_MAX_CONNECTIONS")),
    /** The docs site for /docs/; undefined: the copy @commonly/cap-console carries (see buildApp). */
    docsDir: flags.docsDir ?? env("CAP_DOCS_DIR"),
    /** False: the plain store and no token cache (store/README.md, "Plain and accelerated"). */
    accelerate: flags.accelerate === false ? false : !isOff(env("CAP_ACCELERATE")),
    /** Only the limits a flag or CAP_* variable set (limit-flags.ts); the kernel's defaults fill the rest. */
    limits: resolveLimitFlags(flags, env),
  };
}

function profile(raw: string | undefined): ProfileName {
  if (raw === undefined) return "cap";
  if (!isProfileName(raw))
    throw new Error(`--profile must be one of ${PROFILE_NAMES.join(", ")}, got "${raw}"`);
  return raw;
}

/** A URL a client on this machine can use to reach a server bound to `host`. */
export function baseUrlFor(host: string, port: number): string {
  const h = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** The file a `sqlite:PATH` URL names; null for an in-memory or PostgreSQL store. */
export function sqliteFile(db: string): string | null {
  if (!db.startsWith("sqlite:")) return null;
  const path = db.slice("sqlite:".length);
  return path === "" || path === ":memory:" ? null : path;
}

/**
 * For commands that act on an existing kernel's data (emit, dead-letters, tokens): a missing SQLite file is
 * an error naming it, so a typo or the wrong working directory never creates an empty database whose
 * empty answer looks like the truth.
 */
export function requireExistingDb(s: { db: string; dbSource: string }): void {
  const file = sqliteFile(s.db);
  if (file === null || existsSync(file)) return;
  throw new Error(
    `no database at ${file} (${s.dbSource}); pass --db sqlite:PATH (or set CAP_DB) to the kernel's store, or create one with "cap-kernel provision" or "cap-kernel serve"`,
  );
}

/** Says on stderr when a command is about to create a new SQLite file, and where (serve, provision, demo). */
export function announceNewDb(
  s: { db: string; dbSource: string },
  say = (l: string) => process.stderr.write(l),
) {
  const file = sqliteFile(s.db);
  if (file !== null && !existsSync(file))
    say(`cap-kernel: creating a new database at ${file} (${s.dbSource})\n`);
}
