/**
 * Every way a `commonly` command can fail on purpose, with its exit status: one registry, declared
 * once, documented in docs/local-cli-driver.md §Exit codes (a test compares the two). A CliError's
 * message is for a person at a terminal: it says what happened and what to type next. Codes are
 * never renamed or reused; an unexpected failure (a bug) exits 1 without a code.
 */

export const CLI_ERRORS = {
  usage: { exitCode: 2, summary: "bad arguments or options" },
  not_logged_in: { exitCode: 3, summary: "no saved login for the kernel, or the kernel rejected it" },
  kernel_unreachable: { exitCode: 4, summary: "no HTTP answer from the kernel URL" },
  kernel_refused: { exitCode: 5, summary: "the kernel refused a registry call (pod, name, permission)" },
  token_revoked: { exitCode: 6, summary: "the agent's runtime token is revoked or unknown" },
  already_running: { exitCode: 7, summary: "another `agent run` of this agent holds its pidfile" },
  cli_not_found: { exitCode: 8, summary: "the wrapped CLI is not on PATH" },
  not_attached: { exitCode: 9, summary: "no token file for this agent name" },
  already_attached: { exitCode: 10, summary: "a token file for this agent name exists already" },
} as const;

export type CliErrorCode = keyof typeof CLI_ERRORS;

const BRAND = Symbol.for("commonly.cli.CliError");

export class CliError extends Error {
  readonly code: CliErrorCode;
  readonly exitCode: number;

  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CliError";
    this.code = code;
    this.exitCode = CLI_ERRORS[code].exitCode;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** The hint every "token no longer works" message ends with. */
export function reattachHint(name: string): string {
  return `run \`commonly agent detach ${name}\` and attach it again`;
}
