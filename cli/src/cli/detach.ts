/**
 * `commonly agent detach <name>`: the reverse of attach. Revoke the saved runtime token, uninstall
 * the agent from its pod (which also retires its open events), then forget it locally: token file,
 * session file and event ring. Logs stay — they are the user's record. A running loop is refused
 * (stop it first); an unreachable kernel is an error unless --local-only says to forget locally
 * anyway, in which case the token stays valid on the kernel until someone revokes it there.
 */
import { readFile, rm } from "node:fs/promises";
import { CliError } from "../errors.js";
import { createAdminApi } from "../kernel/admin-api.js";
import { loadConfig, resolveInstance } from "../state/config.js";
import { agentPaths, assertAgentName } from "../state/home.js";
import { isProcessAlive } from "../state/pidfile.js";
import { loadToken, removeToken } from "../state/tokens.js";
import { tildify } from "../ui/paths.js";
import { check, type Terminal } from "../ui/terminal.js";

export interface DetachFlags {
  localOnly?: boolean;
}

/** The pid of a live `agent run` of this agent, or null. */
export async function runningPid(home: string, name: string): Promise<number | null> {
  const text = await readFile(agentPaths(home, name).pidfile, "utf8").catch(() => null);
  const pid = Number.parseInt(text?.trim() ?? "", 10);
  return Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) ? pid : null;
}

export async function detach(home: string, name: string, flags: DetachFlags, term: Terminal): Promise<void> {
  try {
    assertAgentName(name);
  } catch (err) {
    throw new CliError("usage", (err as Error).message);
  }
  const rec = await loadToken(home, name);
  if (!rec) {
    throw new CliError(
      "not_attached",
      `agent '${name}' is not attached here (no ${tildify(agentPaths(home, name).token)})`,
    );
  }
  const pid = await runningPid(home, name);
  if (pid !== null) {
    throw new CliError(
      "already_running",
      `agent '${name}' is running (pid ${pid}); stop \`commonly agent run ${name}\` first`,
    );
  }

  if (!flags.localOnly) {
    const instance = resolveInstance(await loadConfig(home), rec.instanceUrl);
    if (!instance) {
      throw new CliError(
        "not_logged_in",
        `no saved login for ${rec.instanceUrl}: run \`commonly login --url ${rec.instanceUrl}\` first, ` +
          "or pass --local-only to only forget the agent on this machine",
      );
    }
    const api = createAdminApi(instance.url, instance.token);
    try {
      if (rec.tokenId) {
        const revoked = await api.revokeToken(rec.podId, name, rec.tokenId);
        term.line(check(revoked === "revoked" ? "Runtime token revoked" : "Runtime token was already gone"));
      }
      const removed = await api.uninstall(rec.podId, name, rec.instanceId);
      term.line(
        check(
          removed === "uninstalled"
            ? `Agent '${name}' uninstalled from pod ${rec.podId}`
            : `Agent '${name}' was not installed in pod ${rec.podId} any more`,
        ),
      );
    } catch (err) {
      if (err instanceof CliError && err.code === "kernel_unreachable") {
        throw new CliError(
          "kernel_unreachable",
          `${err.message} Or pass --local-only to only forget the agent here.`,
          {
            cause: err,
          },
        );
      }
      throw err;
    }
  }

  const paths = agentPaths(home, name);
  await removeToken(home, name);
  await rm(paths.sessions, { force: true });
  await rm(paths.events, { force: true });
  await rm(paths.pidfile, { force: true });
  term.line(
    check(`Local state removed (logs kept in ${tildify(paths.log(new Date()).replace(/[^/]+$/, ""))})`),
  );
  if (flags.localOnly)
    term.line("  The token is still valid on the kernel until a pod admin revokes it.", "warn");
}
