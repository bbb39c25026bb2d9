/**
 * `commonly agent run <name>`: the long-running half of ADR-005. Finds the agent (token file, or
 * COMMONLY_AGENT_TOKEN + COMMONLY_API_URL for containers and CI), takes the pidfile so a second
 * `run` of the same agent is refused, checks the CLI is still installed, and runs the loop until
 * Ctrl+C. Ctrl+C is turned into an AbortSignal (the CLI runs in its own process group and does not
 * see the terminal's SIGINT): the first stops polling and lets the running turn finish, the second
 * kills the CLI. The runtime token never reaches the wrapped CLI's environment.
 */
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CmdAdapterOptions } from "../adapters/cmd.js";
import { getAdapter, isAdapterName } from "../adapters/registry.js";
import { DEFAULT_TIMEOUT_MS } from "../adapters/types.js";
import { CliError } from "../errors.js";
import { createReporter } from "../loop/reporter.js";
import { CANCEL_GRACE_MS, runAgent, shutdownGraceMs } from "../loop/run-agent.js";
import { agentPaths, assertAgentName } from "../state/home.js";
import { createLogger } from "../state/logger.js";
import { acquirePidfile, PidfileBusyError } from "../state/pidfile.js";
import { loadToken } from "../state/tokens.js";
import type { Terminal } from "../ui/terminal.js";

export interface RunFlags {
  timeout?: number;
  pollInterval?: number;
  wait?: number;
  cwd?: string;
  verbose?: boolean;
  /** After a cancel, ms between SIGTERM and SIGKILL of the CLI (default 5 s). */
  cancelGrace?: number;
}

interface AgentSource {
  baseUrl: string;
  token: string;
  adapter: string;
  adapterOptions?: Partial<CmdAdapterOptions>;
  cwd?: string;
  stopNote?: boolean;
  from: string;
}

function fromEnv(env: NodeJS.ProcessEnv): AgentSource | null {
  const token = env.COMMONLY_AGENT_TOKEN?.trim();
  const baseUrl = env.COMMONLY_API_URL?.trim();
  if (!token || !baseUrl) return null;
  const adapter = env.COMMONLY_ADAPTER?.trim() || "stub";
  let args: string[] | undefined;
  if (env.COMMONLY_CMD_ARGS) {
    try {
      args = JSON.parse(env.COMMONLY_CMD_ARGS) as string[];
      if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) throw new Error();
    } catch {
      throw new CliError(
        "usage",
        'COMMONLY_CMD_ARGS must be a JSON array of strings, e.g. ["--ask","{prompt}"]',
      );
    }
  }
  const command = env.COMMONLY_CMD?.trim();
  return {
    baseUrl,
    token,
    adapter,
    ...(command ? { adapterOptions: { command, ...(args ? { args } : {}) } } : {}),
    ...(env.COMMONLY_STOP_NOTE === "1" ? { stopNote: true } : {}),
    from: "COMMONLY_AGENT_TOKEN + COMMONLY_API_URL",
  };
}

async function findAgent(home: string, name: string): Promise<AgentSource> {
  const rec = await loadToken(home, name);
  if (rec) {
    return {
      baseUrl: rec.instanceUrl,
      token: rec.runtimeToken,
      adapter: rec.adapter,
      ...(rec.adapterOptions ? { adapterOptions: rec.adapterOptions as Partial<CmdAdapterOptions> } : {}),
      ...(rec.cwd ? { cwd: rec.cwd } : {}),
      ...(rec.stopNote === true ? { stopNote: true } : {}),
      from: "token file",
    };
  }
  const env = fromEnv(process.env);
  if (env) return env;
  throw new CliError(
    "not_attached",
    `agent '${name}' is not attached here (no ${agentPaths(home, name).token}): run ` +
      `\`commonly agent attach <cli> --pod <podId> --name ${name}\`, or set COMMONLY_AGENT_TOKEN and COMMONLY_API_URL`,
  );
}

export async function run(home: string, name: string, flags: RunFlags, term: Terminal): Promise<void> {
  try {
    assertAgentName(name);
  } catch (err) {
    throw new CliError("usage", (err as Error).message);
  }
  const source = await findAgent(home, name);
  if (!isAdapterName(source.adapter)) {
    throw new CliError("usage", `unknown adapter "${source.adapter}" (from ${source.from})`);
  }
  let adapter: ReturnType<typeof getAdapter>;
  try {
    adapter = getAdapter(source.adapter, source.adapterOptions);
  } catch (err) {
    throw new CliError(
      "usage",
      `${(err as Error).message} (from ${source.from}; for env start set COMMONLY_CMD)`,
    );
  }
  if (!(await adapter.detect())) {
    throw new CliError(
      "cli_not_found",
      `${source.adapterOptions?.command ?? source.adapter} is not on your PATH any more; install it (and log it in), then run again`,
    );
  }

  let lock: Awaited<ReturnType<typeof acquirePidfile>>;
  try {
    lock = await acquirePidfile(agentPaths(home, name).pidfile);
  } catch (err) {
    if (err instanceof PidfileBusyError) {
      throw new CliError(
        "already_running",
        `agent '${name}' is already running (pid ${err.pid}); two loops would spawn and post twice. ` +
          `Stop that one first, or delete ${err.path} if pid ${err.pid} is not this agent.`,
      );
    }
    throw err;
  }
  const releaseOnExit = () => lock.releaseSync();
  process.once("exit", releaseOnExit);

  const stop = new AbortController();
  const kill = new AbortController();
  const cancelGraceMs = flags.cancelGrace ?? CANCEL_GRACE_MS;
  const graceMs = shutdownGraceMs(cancelGraceMs);
  const logger = createLogger({ home, agentName: name });
  const report = createReporter({ name, logger, terminal: term, verbose: flags.verbose ?? false });
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      report.say(
        "info",
        "stopping",
        `${signal}: stopping: the waiting events go back, the running turn gets up to ${graceMs / 1000} s and is released if it is not done (ctrl+c again to kill it now)`,
        {
          signal,
        },
      );
      stop.abort(signal);
    } else if (!kill.signal.aborted) {
      report.say("warn", "killing", `${signal}: killing the running CLI`, { signal });
      kill.abort(signal);
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const cwd = flags.cwd ?? source.cwd ?? join(tmpdir(), "commonly-agents", name);
  await mkdir(cwd, { recursive: true });
  const { COMMONLY_AGENT_TOKEN: _secret, ...inherited } = process.env;
  try {
    const summary = await runAgent({
      name,
      home,
      baseUrl: source.baseUrl,
      token: source.token,
      adapter,
      adapterName: source.adapter,
      ...(source.adapterOptions ? { cmdOptions: source.adapterOptions } : {}),
      cwd,
      env: { ...inherited, COMMONLY_AGENT_NAME: name },
      timeoutMs: flags.timeout ?? DEFAULT_TIMEOUT_MS,
      report,
      signal: stop.signal,
      kill: kill.signal,
      cancelGraceMs,
      stopNote: source.stopNote ?? false,
      shutdownTimeoutMs: graceMs,
      ...(flags.pollInterval !== undefined ? { pollIntervalMs: flags.pollInterval } : {}),
      ...(flags.wait !== undefined ? { waitSeconds: flags.wait } : {}),
    });
    report.say(
      "info",
      "stopped",
      `stopped: ${summary.handled} handled, ${summary.duplicates} duplicates, ${summary.failures} failed turns, ` +
        `${summary.returned} released, ${summary.cancelled} cancelled`,
      { ...summary },
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await lock.release();
    process.off("exit", releaseOnExit);
  }
}
