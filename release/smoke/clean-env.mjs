/**
 * The environment of a stranger's shell, for every command the smoke runs: the variables pnpm, turbo and
 * vitest set for the workspace are gone, no PATH entry points into the workspace, and HOME is a scratch
 * folder (so no `~/.npmrc`, `~/.commonly` or pip configuration of this machine's user is read).
 *
 * Must never: pass on an `npm_config_*` variable of the pnpm that runs the tests (a registry, a store, a
 * `node-gyp` path) or a PATH entry under the workspace — either would let an install resolve what a real
 * user's would not.
 */
import { delimiter, relative, sep } from "node:path";
import { ROOT } from "../workspace.mjs";

const DROPPED =
  /^(npm_|pnpm_|PNPM_|TURBO_|VITEST|NODE_OPTIONS$|NODE_PATH$|NODE_ENV$|INIT_CWD$|COMMONLY_|CAP_|PIP_|PYTHON|VIRTUAL_ENV$)/i;

const insideRoot = (p) => {
  const r = relative(ROOT, p);
  return r === "" || !(r.startsWith(`..${sep}`) || r === "..");
};

/**
 * `home`: the scratch HOME. `pathFirst`: folders put in front of PATH (the Node under test). `set`: more
 * variables (npm configuration for the scratch registry, the Node headers for native builds).
 */
export function cleanEnv({ home, pathFirst = [], set = {} }) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!DROPPED.test(k)) env[k] = v;
  const path = (process.env.PATH ?? "").split(delimiter).filter((p) => p && !insideRoot(p));
  env.PATH = [...pathFirst, ...path].join(delimiter);
  env.HOME = home;
  // No colours and no spinners in captured output; no update or funding notices from npm.
  env.NO_COLOR = "1";
  env.npm_config_update_notifier = "false";
  env.npm_config_fund = "false";
  env.npm_config_audit = "false";
  return { ...env, ...set };
}
