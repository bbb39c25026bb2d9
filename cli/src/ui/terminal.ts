/**
 * What a person sees: `[name] …` lines in ADR-005's §User flow style, ✓ lines for one-shot commands,
 * and a spinner while a wrapped CLI runs — only when stdout is a terminal. Piped or redirected
 * output gets plain lines, one per happening, with no escape codes — also under CI, where picocolors'
 * own default would colour (NO_COLOR and FORCE_COLOR still win). Nothing here decides what to print.
 */
import ora, { type Ora } from "ora";
import picocolors from "picocolors";

/** Colour only for a person at a terminal: a log file or a pipe must not collect escape codes. */
function colourWanted(): boolean {
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== "0") return true;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  return process.stdout.isTTY === true;
}

const pc = picocolors.createColors(colourWanted());

export type Tone = "plain" | "dim" | "good" | "warn" | "bad";

export interface Spinner {
  stop(): void;
}

export interface Terminal {
  readonly interactive: boolean;
  /** One line on stdout (or stderr), around a running spinner. */
  line(text: string, tone?: Tone, stream?: "stdout" | "stderr"): void;
  spin(text: string): Spinner;
}

const paint: Record<Tone, (s: string) => string> = {
  plain: (s) => s,
  dim: pc.dim,
  good: pc.green,
  warn: pc.yellow,
  bad: pc.red,
};

export interface TerminalOptions {
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** Force the spinner on or off (default: stdout is a TTY and CI is unset). */
  interactive?: boolean;
}

export function createTerminal(opts: TerminalOptions = {}): Terminal {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const interactive = opts.interactive ?? (stdout.isTTY === true && !process.env.CI);
  let active: Ora | null = null;
  return {
    interactive,
    line(text, tone = "plain", stream = "stdout") {
      active?.clear();
      (stream === "stderr" ? stderr : stdout).write(`${paint[tone](text)}\n`);
      active?.render();
    },
    spin(text) {
      if (!interactive) return { stop() {} };
      const spinner = ora({ text, stream: stdout, discardStdin: false, isEnabled: true }).start();
      active = spinner;
      return {
        stop() {
          spinner.stop();
          if (active === spinner) active = null;
        },
      };
    },
  };
}

/** `✓ text` for one-shot commands. */
export function check(text: string): string {
  return `${pc.green("✓")} ${text}`;
}

/** `[name]` as the run loop prefixes its lines. */
export function agentPrefix(name: string): string {
  return pc.cyan(`[${name}]`);
}

/** A one-line, quoted preview of `text`, at most `max` characters. */
export function preview(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return `"${cut}"`;
}
