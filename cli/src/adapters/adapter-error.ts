/**
 * The one error type adapters throw, and the pure classifier that gives it a `kind`.
 *
 * The SDK's retry circuit (ADR-005 §Spawning semantics, issue #782) decides its delays from
 * `kind` alone: quota and configuration open a long circuit at once, rate limits back off from a
 * minute, runtime failures retry quickly first. The classifier must stay a pure function of exit
 * status and output text so it can be table-tested; it must never read the environment or the
 * clock. Production got this wrong by classifying plain Error messages ad hoc.
 */

export type AdapterErrorKind = "quota" | "configuration" | "rate_limit" | "runtime" | "timeout" | "not_found";

const BRAND = Symbol.for("commonly.cli.AdapterError");

export interface AdapterErrorInit {
  kind: AdapterErrorKind;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
  /** True when the run was stopped by the caller's AbortSignal rather than failing by itself. */
  aborted?: boolean;
  cause?: unknown;
}

export class AdapterError extends Error {
  readonly kind: AdapterErrorKind;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderrTail: string;
  readonly aborted: boolean;

  constructor(message: string, init: AdapterErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "AdapterError";
    this.kind = init.kind;
    this.exitCode = init.exitCode ?? null;
    this.signal = init.signal ?? null;
    this.stderrTail = init.stderrTail ?? "";
    this.aborted = init.aborted ?? false;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** `instanceof` that survives two copies of this module in one process. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isAdapterError(value);
  }
}

export function isAdapterError(value: unknown): value is AdapterError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

export interface FailureOutput {
  exitCode: number | null;
  stderr: string;
  stdout: string;
}

// First match wins, so the order matters: "429 insufficient_quota" is a quota problem (waiting a
// minute will not help), and an auth failure is configuration even when it mentions a status code.
const RULES: ReadonlyArray<readonly [AdapterErrorKind, RegExp]> = [
  [
    "quota",
    /insufficient_quota|\bquota\b|credit balance|out of credits|usage limit|billing|payment required|\b402\b/i,
  ],
  [
    "configuration",
    /not logged in|please (?:run \/?)?log ?in|login required|invalid[ _-]?api[ _-]?key|api key (?:not|is not|missing)|missing api key|authentication|unauthori[sz]ed|\b401\b|forbidden|\b403\b/i,
  ],
  ["rate_limit", /rate[ _-]?limit|\b429\b|too many requests|overloaded|\b529\b/i],
];

/**
 * Classifies a failed run from its exit status and output. Only the last 8 KiB of each stream are
 * read: a CLI's error is at the end, and a long reply that merely mentions "quota" is not one.
 */
export function classifyFailure({ exitCode, stderr, stdout }: FailureOutput): AdapterErrorKind {
  const text = `${stderr.slice(-8192)}\n${stdout.slice(-8192)}`;
  for (const [kind, pattern] of RULES) {
    if (pattern.test(text)) return kind;
  }
  // 127 is a shell's "command not found" (a wrapper script whose target is missing).
  if (exitCode === 127) return "not_found";
  // 126: found but not executable; the user has to fix the install.
  if (exitCode === 126) return "configuration";
  return "runtime";
}
