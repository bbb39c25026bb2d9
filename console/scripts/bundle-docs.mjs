#!/usr/bin/env node
/**
 * Puts the built docs site into this package (`docs-site/`) when it is packed, so a kernel installed from
 * npm answers `/docs/` (the docs package is private; the kernel serves `defaultDocsDir`, this folder).
 *
 * Why at pack time and not in `build`: the site lists the conformance suite's checks, so the docs build
 * depends on the suite, which depends (for its tests and `driver` mode) on the kernel, which depends on
 * this package — a cycle if this package's turbo build needed the docs. At pack time the workspace is whole:
 * turbo builds the docs and what they need (cache hits when nothing changed, so a publish from a clean
 * checkout still gets a fresh site), and the site is copied here.
 *
 * Must never: pack a partial or missing site silently — a failed docs build, or a site without its index
 * and page list, fails the pack.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const root = resolve(pkg, "..");
const site = join(root, "docs", "site");
const out = join(pkg, "docs-site");

const turbo = join(root, "node_modules", ".bin", "turbo");
if (!existsSync(turbo)) fail(`${turbo} is missing: run pnpm install at the repository root first`);
const built = spawnSync(
  turbo,
  ["run", "build", "--filter=@commonly/cap-docs", "--output-logs=errors-only", "--log-prefix=none"],
  {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
  },
);
if (built.error) fail(`turbo did not run: ${built.error.message}`);
if (built.status !== 0) fail(`the docs build failed (turbo exit ${built.status})`);
for (const f of ["index.html", "pages.json"])
  if (!existsSync(join(site, f))) fail(`docs/site/${f} is missing after the docs build`);

rmSync(out, { recursive: true, force: true });
cpSync(site, out, { recursive: true });
const { files, bytes } = count(out);
process.stdout.write(
  `bundle-docs: docs/site → console/docs-site (${files} files, ${Math.round(bytes / 1024)} KiB)\n`,
);

function count(dir) {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const c = count(p);
      files += c.files;
      bytes += c.bytes;
    } else {
      files += 1;
      bytes += statSync(p).size;
    }
  }
  return { files, bytes };
}

function fail(message) {
  process.stderr.write(`bundle-docs: ${message}\n`);
  process.exit(1);
}
