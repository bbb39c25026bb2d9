/**
 * `commonly agent attach <cli>`: the one-time half of ADR-005's two commands. Detect the CLI (never
 * install it), publish the agent name, install it in the pod, issue a runtime token with the
 * human's login, and save `tokens/<name>.json` (0600). Re-attaching after a revoked token works:
 * an installation that is still active is reused and only a new token is issued.
 *
 * The adapter name stays local (token file); the kernel only ever sees an ordinary agent
 * (ADR-005 invariant 2).
 */
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { CmdAdapterOptions } from "../adapters/cmd.js";
import { ADAPTER_NAMES, getAdapter, isAdapterName } from "../adapters/registry.js";
import { CliError } from "../errors.js";
import { AdminApiError, createAdminApi } from "../kernel/admin-api.js";
import { loadConfig, resolveInstance } from "../state/config.js";
import { agentPaths, assertAgentName } from "../state/home.js";
import { loadToken, saveToken } from "../state/tokens.js";
import { tildify } from "../ui/paths.js";
import { check, type Terminal } from "../ui/terminal.js";

export interface AttachFlags {
  pod: string;
  name: string;
  instance?: string;
  instanceId?: string;
  cwd?: string;
  command?: string;
  arg?: string[];
  memory?: boolean;
  versionFlag?: boolean;
  force?: boolean;
  stopNote?: boolean;
}

/** The token file's adapterOptions for `cli`, validated against the flags that were given. */
function adapterOptions(cli: string, flags: AttachFlags): Partial<CmdAdapterOptions> | undefined {
  if (cli !== "cmd") {
    if (flags.command !== undefined || (flags.arg ?? []).length > 0)
      throw new CliError("usage", `--command and --arg are for the cmd adapter only, not ${cli}`);
    return undefined;
  }
  if (!flags.command) {
    throw new CliError("usage", "the cmd adapter needs --command <executable> (and --arg for each argument)");
  }
  return {
    command: flags.command,
    ...(flags.arg && flags.arg.length > 0 ? { args: flags.arg } : {}),
    ...(flags.memory === false ? { memory: false } : {}),
    ...(flags.versionFlag ? { versionFlag: true } : {}),
  };
}

function explain(err: unknown, flags: AttachFlags, user: string): never {
  if (err instanceof AdminApiError) {
    const because: Record<string, string> = {
      pod_not_found: `pod ${flags.pod} does not exist on this kernel, or ${user} is not a member of it`,
      forbidden: `${user} is not an admin of pod ${flags.pod}; ask one of its admins to attach the agent`,
      agent_name_taken: `the agent name '${flags.name}' belongs to another user on this kernel; choose another --name`,
    };
    const text = because[err.kernelCode];
    if (text) throw new CliError("kernel_refused", `${text} (${err.kernelCode})`, { cause: err });
  }
  throw err;
}

export async function attach(home: string, cli: string, flags: AttachFlags, term: Terminal): Promise<void> {
  if (!isAdapterName(cli)) {
    throw new CliError("usage", `unknown CLI "${cli}"; known: ${ADAPTER_NAMES.join(", ")}`);
  }
  try {
    assertAgentName(flags.name);
  } catch (err) {
    throw new CliError("usage", (err as Error).message);
  }
  const options = adapterOptions(cli, flags);
  const existing = await loadToken(home, flags.name).catch(() => null);
  if (existing && !flags.force) {
    throw new CliError(
      "already_attached",
      `agent '${flags.name}' is already attached (${tildify(agentPaths(home, flags.name).token)}); ` +
        `run \`commonly agent detach ${flags.name}\` first, or pass --force to attach over it`,
    );
  }
  const instance = resolveInstance(await loadConfig(home), flags.instance);
  if (!instance) {
    const which = flags.instance ? `for '${flags.instance}'` : "yet";
    throw new CliError(
      "not_logged_in",
      `not logged in ${which}: run \`commonly login --url <kernel url> --token <cm_user_…>\` first`,
    );
  }

  const adapter = getAdapter(cli, options);
  const found = await adapter.detect();
  if (!found) {
    const what = cli === "cmd" ? options?.command : cli === "cursor" ? "cursor-agent" : cli;
    throw new CliError(
      "cli_not_found",
      `${what} is not on your PATH (or not executable). Install it and log it in first — ` +
        "commonly never installs CLIs — then run attach again.",
    );
  }
  // A relative script path is resolved now: the CLI later runs in the agent's own directory.
  if (options?.command?.includes("/")) options.command = found.path;
  term.line(check(`${cli} detected at ${found.path} (version ${found.version})`));

  const api = createAdminApi(instance.url, instance.token);
  const me = await api.me();
  const instanceId = flags.instanceId ?? "default";
  let tokenId: string;
  let runtimeToken: string;
  let reused = false;
  try {
    await api.publish({
      name: flags.name,
      displayName: flags.name,
      description: "A local CLI in this pod through `commonly agent run` (ADR-005).",
    });
    reused = (await api.install({ agentName: flags.name, podId: flags.pod, instanceId })) === "existing";
    const issued = await api.issueToken(flags.pod, flags.name, {
      instanceId,
      label: `commonly-cli@${hostname()}`,
    });
    tokenId = issued.id;
    runtimeToken = issued.token;
  } catch (err) {
    explain(err, flags, me.name);
  }
  term.line(
    check(
      `Agent '${flags.name}' registered in pod ${flags.pod}${reused ? " (installation already active)" : ""}`,
    ),
  );

  await saveToken(home, {
    agentName: flags.name,
    instanceId,
    podId: flags.pod,
    instanceUrl: instance.url,
    runtimeToken,
    adapter: cli,
    ...(options ? { adapterOptions: options as Record<string, unknown> } : {}),
    tokenId,
    ...(flags.cwd ? { cwd: resolve(flags.cwd) } : {}),
    ...(flags.stopNote ? { stopNote: true } : {}),
    savedAt: new Date().toISOString(),
  });
  term.line(check(`Runtime token saved to ${tildify(agentPaths(home, flags.name).token)}`));
  term.line("");
  term.line(`  Run with: commonly agent run ${flags.name}`);
}
