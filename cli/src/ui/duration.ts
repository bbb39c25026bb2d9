/**
 * Durations as a person types them on the command line: `300` (seconds), `90s`, `5m`, `1500ms`,
 * `1h`. Parsed once, at the flag, so a typo fails before anything starts.
 */
import { CliError } from "../errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const ms = m ? Math.round(Number(m[1]) * UNITS[m[2] ?? "s"]!) : Number.NaN;
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new CliError(
      "usage",
      `${flag} must be a positive duration like 300, 90s, 5m or 1500ms; got "${text}"`,
    );
  }
  return ms;
}

/** "1m 05s", "12s", "850 ms": how long a wait is, for terminal lines. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return `${m}m ${String(s % 60).padStart(2, "0")}s`;
}

export function parsePositiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError("usage", `${flag} must be a whole number; got "${text}"`);
  return n;
}
