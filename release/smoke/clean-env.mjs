/**
 * The environment of a stranger's shell, for every command the smoke runs: the variables pnpm, turbo and
 * vitest set for the workspace are gone, no PATH entry points into the workspace, and HOME is a scratch
 * folder (so no `~/.npmrc`, `~/.commonly` or pip configuration of this machine's user is read).
 *
 * What is kept is the machine's: its global npm configuration (where an administrator puts a CA file, a
 * proxy or a registry mirror; every npm on the machine reads it, so it is passed on by path to the npm
 * that runs under another Node, whose own prefix has none), and the proxy and CA variables.
 *
 * Must never: pass on an `npm_config_*` variable of the pnpm that runs the tests (a registry, a store, a
 * `node-gyp` path) or a PATH entry under the workspace or of pnpm/npx (`node_modules/.bin`, `node-gyp-bin`,
 * `_npx`) — either would let an install resolve what a real user's would not.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, relative, sep } from "node:path";
import { ROOT } from "../workspace.mjs";

const DROPPED =
  /^(npm_|pnpm_|PNPM_|TURBO_|VITEST|NODE_OPTIONS$|NODE_PATH$|NODE_ENV$|INIT_CWD$|COMMONLY_|CAP_|PIP_|PYTHON|VIRTUAL_ENV$)/i;

const insideRoot = (p) => {
  const r = relative(ROOT, p);
  return r === "" || !(r.startsWith(`..${sep}`) || r === "..");
};
const toolingPath = (p) => /node_modules[\\/]\.bin$|node-gyp-bin$|[\\/]_npx[\\/]/.test(p);

let globalConfig;
/** The npmrc every npm on this machine reads (`npm config get globalconfig`), if there is one. */
function machineGlobalConfig() {
  if (globalConfig === undefined) {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const r = spawnSync("npm", ["config", "get", "globalconfig"], {
      encoding: "utf8",
      env: { ...env, HOME: homedir() },
    });
    const file = r.status === 0 ? r.stdout.trim() : "";
    globalConfig = file && existsSync(file) ? file : null;
  }
  return globalConfig;
}

/**
 * `home`: the scratch HOME. `pathFirst`: folders put in front of PATH (the Node under test). `set`: more
 * variables (npm configuration for the scratch registry, the Node headers for native builds).
 */
export function cleanEnv({ home, pathFirst = [], set = {} }) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!DROPPED.test(k)) env[k] = v;
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((p) => p && !insideRoot(p) && !toolingPath(p));
  env.PATH = [...pathFirst, ...path].join(delimiter);
  env.HOME = home;
  // No colours and no spinners in captured output; no update or funding notices from npm.
  env.NO_COLOR = "1";
  env.npm_config_update_notifier = "false";
  env.npm_config_fund = "false";
  env.npm_config_audit = "false";
  const global = machineGlobalConfig();
  if (global) env.npm_config_globalconfig = global;
  return { ...env, ...set };
}
