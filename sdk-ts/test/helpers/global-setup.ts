/**
 * Makes `pnpm test` work from a clean clone without a manual step: builds sdk-ts's dist when it is
 * missing or older than src (the portability, size, README and integration tests run the built
 * package), and the reference kernel's dist when it is missing (turbo builds it first in CI, since
 * `@commonly/cap-kernel` is a devDependency).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const sdk = resolve(import.meta.dirname, "..", "..");
const kernel = resolve(sdk, "..", "reference-server");

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function tsc(cwd: string): void {
  const bin = join(sdk, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [bin, "-p", "tsconfig.build.json"], { cwd, stdio: "inherit" });
}

export default function setup(): void {
  const built = join(sdk, "dist", "index.js");
  if (!existsSync(built) || statSync(built).mtimeMs < newest(join(sdk, "src"))) tsc(sdk);
  if (existsSync(join(kernel, "src", "bin.ts")) && !existsSync(join(kernel, "dist", "bin.js"))) {
    // The kernel's own `build` script: tsc, then copy the SQL migrations into dist.
    tsc(kernel);
    const assets = join(kernel, "scripts", "copy-assets.mjs");
    if (existsSync(assets)) execFileSync(process.execPath, [assets], { cwd: kernel, stdio: "inherit" });
  }
}
