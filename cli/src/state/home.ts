/**
 * Where the CLI keeps its local state, and the one place that turns an agent name into file paths.
 *
 *   $COMMONLY_HOME (default ~/.commonly)/
 *     config.json                  instances {name: {url, token}} and the default one
 *     tokens/<name>.json           runtime token of an attached agent (0600)
 *     sessions/<name>.json         {podId: {sessionId, lastTurn}} (ADR-005)
 *     sessions/<name>.events.json  the last 500 handled event ids
 *     logs/<name>-<YYYY-MM-DD>.log JSON lines, secrets redacted
 *     run/<name>.pid               the pid of the running `agent run`
 *
 * Agent names become file names, so they are checked here: nothing outside the home is ever named.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export function resolveHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.COMMONLY_HOME?.trim();
  return fromEnv ? fromEnv : join(homedir(), ".commonly");
}

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Throws unless `name` is 1–64 of [A-Za-z0-9._-], starting with a letter or digit. */
export function assertAgentName(name: string): void {
  if (!AGENT_NAME.test(name)) {
    throw new TypeError(
      `invalid agent name "${name}": use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
}

export interface AgentPaths {
  token: string;
  sessions: string;
  events: string;
  pidfile: string;
  /** The log file of one UTC day. */
  log(date: Date): string;
}

export function configPath(home: string): string {
  return join(home, "config.json");
}

export function agentPaths(home: string, name: string): AgentPaths {
  assertAgentName(name);
  return {
    token: join(home, "tokens", `${name}.json`),
    sessions: join(home, "sessions", `${name}.json`),
    events: join(home, "sessions", `${name}.events.json`),
    pidfile: join(home, "run", `${name}.pid`),
    log: (date) => join(home, "logs", `${name}-${date.toISOString().slice(0, 10)}.log`),
  };
}
