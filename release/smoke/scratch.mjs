/**
 * Where the pack-and-install smoke works: scratch folders outside the workspace, and one cache folder for
 * what is slow to make again (the other Node binaries, compiled native modules, npm's download cache).
 *
 * Must never: hand out a scratch folder that a parent `node_modules`, `package.json` or workspace file could
 * leak into — Node and npm look upwards, and a parent's packages would let a broken tarball pass.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { ROOT } from "../workspace.mjs";

/** Survives between local runs (a clean clone in CI starts without it); `rm -rf` it to start cold. */
export const CACHE = join(ROOT, "node_modules", ".cache", "cap-smoke");

/** What npm, Node or Python would pick up from a parent folder. */
const LEAKS = [
  "node_modules",
  "package.json",
  "package-lock.json",
  "pnpm-workspace.yaml",
  ".npmrc",
  "pyvenv.cfg",
];

/** The files in the folders above `dir` that would leak into a project made there. */
export function parentLeaks(dir) {
  const found = [];
  for (let d = dirname(dir); ; d = dirname(d)) {
    for (const f of LEAKS) if (existsSync(join(d, f))) found.push(join(d, f));
    if (dirname(d) === d) return found;
  }
}

const made = [];

/** A new empty folder under the system's temporary folder, checked to be outside the workspace and clean. */
export function scratchDir(label) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `cap-smoke-${label}-`)));
  made.push(dir);
  const inside = relative(ROOT, dir);
  if (!inside.startsWith(`..${sep}`) && inside !== "..")
    throw new Error(`scratch folder ${dir} is inside the workspace ${ROOT}`);
  const leaks = parentLeaks(dir);
  if (leaks.length > 0)
    throw new Error(`scratch folder ${dir} would see files of a parent folder: ${leaks.join(", ")}`);
  return dir;
}

/** A folder under the cache, made if missing. */
export function cacheDir(...parts) {
  const dir = join(CACHE, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The scratch folders this process made (and has not removed). */
export const madeDirs = () => [...made];

/** Removes every scratch folder this process made (kept when CAP_SMOKE_KEEP=1, to look at by hand). */
export function removeScratch() {
  if (process.env.CAP_SMOKE_KEEP === "1") {
    console.log(`CAP_SMOKE_KEEP=1: keeping ${made.join(" ")}`);
    return;
  }
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
