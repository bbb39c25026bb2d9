/**
 * The kernel's one native module, better-sqlite3, compiles from source on machines that cannot download its
 * prebuilt binary (this one, and CI here): about two minutes per Node ABI, and the smoke installs the kernel
 * several times per Node. The first install on each ABI compiles, as a user's would; its binary is then
 * kept in the cache as a prebuild-install archive, and later installs find it there through
 * prebuild-install's own `local-prebuilds` setting, written to `~/.prebuild-installrc` of the scratch HOME
 * (prebuild-install reads its settings with `rc`; the `npm_config_…` variable form makes npm 11 warn).
 *
 * Must never: keep a binary for the wrong ABI or version — the archive is named as prebuild-install names
 * its downloads (`better-sqlite3-v<version>-node-v<abi>-linux-x64.tar.gz`), and prebuild-install loads the
 * binary before it accepts it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheDir } from "./scratch.mjs";
import { step } from "./steps.mjs";

const MODULE = "better-sqlite3";

/**
 * Sets up `home` so installs find kept binaries; resolves the variables node-gyp needs to compile against
 * `runtime`'s own headers when none is kept.
 */
export function nativeSetup(runtime, home) {
  writeFileSync(join(home, ".prebuild-installrc"), `local-prebuilds=${cacheDir("prebuilds")}\n`);
  return runtime.nodedir ? { npm_config_nodedir: runtime.nodedir } : {};
}

/** The archive's path for the installed module under `project` on `runtime`'s ABI. */
function archiveFor(project, abi) {
  const pkg = join(project, "node_modules", MODULE, "package.json");
  if (!existsSync(pkg)) return undefined;
  const { version } = JSON.parse(readFileSync(pkg, "utf8"));
  return join(
    cacheDir("prebuilds"),
    `${MODULE}-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`,
  );
}

/** After an install under `project`: keep a compiled better-sqlite3 binary for the next installs. */
export async function keepCompiled(project, runtime, env) {
  const { stdout } = await step(`Node ${runtime.version}: its ABI`, join(runtime.bin, "node"), [
    "-p",
    "process.versions.modules",
  ]);
  const archive = archiveFor(project, stdout.trim());
  if (!archive || existsSync(archive)) return;
  const dir = join(project, "node_modules", MODULE);
  if (!existsSync(join(dir, "build", "Release", "better_sqlite3.node"))) return;
  // Written aside and renamed: an install running meanwhile on the same ABI sees the whole archive or none.
  const partial = `${archive}.${process.pid}.partial`;
  await step(
    `keep the compiled ${MODULE} for Node ${runtime.version}`,
    "tar",
    ["-czf", partial, "-C", dir, "build/Release/better_sqlite3.node"],
    { env },
  );
  renameSync(partial, archive);
}
