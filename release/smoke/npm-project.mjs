/**
 * A user's project in a scratch folder: an empty package.json, then `npm install <what the README says>`
 * with the Node under test first on PATH. Answers what the install brought: its size on disk, the packages
 * in it, and the native modules (`.node` files) among them.
 *
 * Must never: install with anything but npm (the client users have), or run a bin from anywhere but the
 * project's own `node_modules/.bin`.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./scratch.mjs";
import { step } from "./steps.mjs";

/** Makes the project and installs `specs` into it; resolves the project handle. */
export async function npmProject(label, specs, { env, node }) {
  const dir = scratchDir(label);
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `smoke-${label}`, private: true, type: "module" }, null, 2)}\n`,
  );
  const installed = await step(
    `Node ${node}: npm install ${specs.join(" ")}`,
    "npm",
    ["install", "--no-audit", "--no-fund", ...specs],
    { cwd: dir, env },
  );
  return {
    dir,
    installSeconds: installed.seconds,
    /** The path of a bin the install put in node_modules/.bin. */
    bin: (name) => join(dir, "node_modules", ".bin", name),
    has: (name) => existsSync(join(dir, "node_modules", name, "package.json")),
    /** `du -sk node_modules`: what the install costs on disk, dependencies included. */
    async sizeKb() {
      const { stdout } = await step(`size of ${label}'s node_modules`, "du", ["-sk", "node_modules"], {
        cwd: dir,
        env,
      });
      return Number(stdout.split(/\s/)[0]);
    },
    /** Every package folder under node_modules (scoped ones as `@scope/name`), nested ones included. */
    packages: () => listPackages(join(dir, "node_modules")),
    /** The `.node` binaries anywhere under node_modules. */
    nativeModules: () => findFiles(join(dir, "node_modules"), (f) => f.endsWith(".node")),
  };
}

function listPackages(nodeModules, found = []) {
  if (!existsSync(nodeModules)) return found;
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dirs = entry.name.startsWith("@")
      ? readdirSync(join(nodeModules, entry.name)).map((n) => `${entry.name}/${n}`)
      : [entry.name];
    for (const name of dirs) {
      found.push(name);
      listPackages(join(nodeModules, name, "node_modules"), found);
    }
  }
  return found;
}

function findFiles(dir, match, found = []) {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) findFiles(path, match, found);
    else if (match(entry.name)) found.push(path);
  }
  return found;
}
