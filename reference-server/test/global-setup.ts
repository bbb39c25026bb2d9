/**
 * Process-level tests (serve, crash, CLI) run the built `dist/bin.js`. Rebuild it when any file under src/
 * is newer than the build, so `vitest run` from a clean checkout tests the current code.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function newest(dir: string): number {
  let max = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
}

export default function setup(): void {
  const bin = join(root, "dist", "bin.js");
  if (existsSync(bin) && statSync(bin).mtimeMs >= newest(join(root, "src"))) return;
  execFileSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  execFileSync(process.execPath, [join(root, "scripts", "copy-assets.mjs")], { cwd: root, stdio: "inherit" });
}
