/**
 * One call per happening of the run loop, written twice: a JSON line in `logs/<name>-<date>.log`
 * (structured fields, secrets redacted, always) and a `[name] …` line on the terminal (debug lines
 * only with --verbose). The terminal text travels in the log entry as `text`, so `commonly agent
 * logs` can show the same lines later without touching the kernel.
 */

import type { Logger, LogLevel } from "../state/logger.js";
import { redactText } from "../state/logger.js";
import type { Terminal, Tone } from "../ui/terminal.js";
import { agentPrefix } from "../ui/terminal.js";

export interface Reporter {
  say(level: LogLevel, msg: string, text: string, fields?: Record<string, unknown>, tone?: Tone): void;
  spin(text: string): { stop(): void };
  readonly logger: Logger;
}

const TONE: Record<LogLevel, Tone> = { debug: "dim", info: "plain", warn: "warn", error: "bad" };

export function createReporter(opts: {
  name: string;
  logger: Logger;
  terminal: Terminal;
  verbose?: boolean;
}): Reporter {
  const prefix = agentPrefix(opts.name);
  return {
    logger: opts.logger,
    say(level, msg, text, fields = {}, tone) {
      opts.logger[level](msg, { ...fields, text });
      if (level === "debug" && !opts.verbose) return;
      // Errors stay on stdout with the other loop lines so one stream tells the whole story.
      opts.terminal.line(`${prefix} ${redactText(text)}`, tone ?? TONE[level]);
    },
    spin: (text) => opts.terminal.spin(`${prefix} ${text}`),
  };
}
