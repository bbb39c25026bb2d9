/**
 * The adapter contract of ADR-005: one small module per wrapped CLI, turning a prompt plus the
 * agent's context into one subprocess run and back into text.
 *
 * An adapter must never call the Commonly API, never touch the user's home outside ~/.commonly,
 * and never keep hidden state: argv + env + prompt in; text + optional session id + optional
 * memory summary out. The run loop owns everything else (polling, posting, acking, session files).
 */
import type { spawn } from "node:child_process";

/** Default spawn timeout (ADR-005 §Spawning semantics: 5 minutes). */
export const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;

/** Everything an adapter may use for one turn. */
export interface SpawnContext {
  /** Per-(agent, pod) session id from the session file, or null on the first turn. */
  sessionId: string | null;
  /** Working directory of the wrapped CLI (default chosen by the run loop). */
  cwd: string;
  /** The full environment of the child: process.env merged with agent-specific variables. */
  env: Record<string, string | undefined>;
  /** `sections.long_term.content` at event time; empty string when the agent has none. */
  memoryLongTerm: string;
  /** The event's metadata and pod context, for adapters that want it. */
  metadata: Record<string, unknown>;
  /** Kill the CLI after this many milliseconds (SIGTERM, then SIGKILL after a grace). */
  timeoutMs: number;
  /** Aborting kills the CLI the same way a timeout does (used on shutdown). */
  signal?: AbortSignal;
  /** Grace between SIGTERM and SIGKILL; 2 s when absent. */
  killGraceMs?: number;
  /**
   * The grace after `signal` aborted with this reason, when it differs from `killGraceMs` (a turn a
   * human stopped gets the agent's cancel grace); undefined keeps `killGraceMs`.
   */
  abortGraceMs?(reason: unknown): number | undefined;
  /** Test seam (ADR-005): replaces child_process.spawn. Undefined in production. */
  _spawnImpl?: typeof spawn;
}

/** What one turn produced. */
export interface SpawnResult {
  /** Plain text to post into the pod (possibly empty: the run loop decides whether to post). */
  text: string;
  /** Session id to store for the next turn in this pod, when the CLI has sessions. */
  newSessionId?: string;
  /** Replacement for `long_term` memory, when the CLI asked to update it. */
  memorySummary?: string;
}

/** Where and which version of a CLI was found. */
export interface DetectResult {
  path: string;
  version: string;
}

/** Options of detect(): where to look and how to run `--version`. */
export interface DetectOptions {
  /** Environment whose PATH is searched; process.env when absent. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
  _spawnImpl?: typeof spawn;
}

/** One wrapped CLI. */
export interface Adapter {
  readonly name: string;
  /** Finds the CLI; null when it is not installed (attach fails with a clear message then). */
  detect(opts?: DetectOptions): Promise<DetectResult | null>;
  /** Runs one turn. Throws AdapterError on any failure. */
  spawn(prompt: string, ctx: SpawnContext): Promise<SpawnResult>;
}
