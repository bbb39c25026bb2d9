/**
 * Makes `pnpm --filter @commonly/cli test` work from a clean build: the end-to-end tests run the
 * real `commonly` bin (cli/dist) against the real reference kernel (reference-server/dist), which
 * imports the SDK's dist. Each is built here when missing or older than its sources (turbo builds
 * them first in CI, since both are dependencies of this package). Other teams' packages are built
 * only when missing: rebuilding them here mid-edit would make this suite fail for their reasons.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const cli = resolve(import.meta.dirname, "..", "..");
const root = resolve(cli, "..");

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function build(pkg: string, entry: string, { whenStale = false, extra = [] as string[] } = {}): void {
  const dir = join(root, pkg);
  const built = join(dir, "dist", entry);
  if (existsSync(built) && (!whenStale || statSync(built).mtimeMs >= newest(join(dir, "src")))) return;
  const tsc = join(cli, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: dir, stdio: "inherit" });
  for (const script of extra) execFileSync(process.execPath, [script], { cwd: dir, stdio: "inherit" });
}

export default function setup(): void {
  build("sdk-ts", "index.js");
  build("reference-server", "bin.js", { extra: ["scripts/copy-assets.mjs"] });
  build("cli", "bin.js", { whenStale: true });
}
