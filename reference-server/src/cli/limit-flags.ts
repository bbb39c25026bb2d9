/**
 * One `cap-kernel serve` flag and one CAP_* environment variable per per-client limit (config.ts
 * `KernelLimits`): `messagesPerMinute` is `--messages-per-minute` and `CAP_MESSAGES_PER_MINUTE`. The list
 * is typed by the limits themselves, so a new limit does not compile until it has a flag and a help line.
 * Must never import the kernel: `cap-kernel --help` reads this without loading it.
 */
import { DEFAULT_CONFIG, type KernelLimits } from "../config.js";

/** What each limit bounds and what a client over it is answered. */
const HELP: Record<keyof KernelLimits, string> = {
  maxJsonDepth: "deepest nesting of a JSON body (400 json_too_deep)",
  maxMemoryBytes: "largest memory envelope of one agent, bytes (413 memory_too_large)",
  maxMemorySectionBytes: "largest memory section or item, bytes (413 memory_too_large)",
  maxManifestBytes: "largest registry manifest, bytes (413 manifest_too_large)",
  messagesPerMinute: "messages one runtime token may post per minute, per replica (429 rate_limited)",
  messageBytesPerMinute:
    "bytes of content and metadata one runtime token may post per minute, per replica (429 rate_limited)",
  maxLongPollsPerToken: "long-polls one runtime token may have waiting at once (429 too_many_long_polls)",
  maxCancelWatchesPerToken:
    "cancellation watches one runtime token may have waiting at once (429 too_many_long_polls)",
  maxConnectionsPerClient: "open connections per client address (429 too_many_connections, then closed)",
  authFailuresPerMinute:
    "401 answers per client address per minute before its requests are refused (429 rate_limited)",
  joinRedemptionsPerMinute: "join-code redemptions per client address per minute (429 rate_limited)",
  issuancesPerMinute: "runtime tokens and join codes one human may issue per minute (429 rate_limited)",
  headersTimeoutMs: "ms a connection has to send a whole request head before it is closed",
  keepAliveTimeoutMs: "ms an idle keep-alive connection is kept between requests",
  idempotencyPruneIntervalMs: "ms between prunes of Idempotency-Key records older than 24 h",
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export interface LimitFlag {
  /** The KernelLimits key, also commander's camelCase name for the flag. */
  name: keyof KernelLimits;
  flag: string;
  env: string;
  default: number;
  help: string;
}

export const LIMIT_FLAGS: readonly LimitFlag[] = (Object.keys(HELP) as (keyof KernelLimits)[]).map(
  (name) => ({
    name,
    flag: `--${kebab(name)}`,
    env: `CAP_${kebab(name).replace(/-/g, "_").toUpperCase()}`,
    default: DEFAULT_CONFIG.limits[name],
    help: HELP[name],
  }),
);

/** Flags as commander parses them: one optional string per limit. */
export type LimitFlagValues = Partial<Record<keyof KernelLimits, string>>;

/** The largest value a limit takes: `/info` advertises them as int32. */
const MAX_LIMIT = 2_147_483_647;

/**
 * The limits given by a flag or (failing that) an environment variable; the others are left out, so the
 * kernel's defaults apply. Each must be a whole number from 1 to MAX_LIMIT: a typo fails at start.
 */
export function resolveLimitFlags(
  flags: LimitFlagValues,
  env: (name: string) => string | undefined,
): Partial<KernelLimits> {
  const out: Partial<KernelLimits> = {};
  for (const l of LIMIT_FLAGS) {
    const raw = flags[l.name] ?? env(l.env);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
      throw new Error(`${l.flag} (${l.env}) must be a whole number from 1 to ${MAX_LIMIT}, got "${raw}"`);
    out[l.name] = n;
  }
  return out;
}
