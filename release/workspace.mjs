/**
 * The workspace as the release sees it: every package pnpm-workspace.yaml names, which of them npm publishes
 * (not `private`), and the one Python package (sdk-py, private to npm, published to PyPI as commonly-cap).
 * Read-only: it must never write a file; the release checks and sync-versions.mjs share it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** A placeholder until the repository's real home is confirmed; every package's metadata points here. */
export const REPOSITORY = "https://github.com/commonly-ai/cap";
export const PYTHON_PACKAGE = { dir: "sdk-py", name: "@commonly/cap-sdk-py", distribution: "commonly-cap" };

/** Every workspace package: `{dir, name, private, json}`, `dir` relative to the root. */
export function workspacePackages() {
  const { packages } = parse(readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8"));
  const dirs = packages.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${parent}/${d.name}`);
  });
  return dirs
    .filter((dir) => existsSync(join(ROOT, dir, "package.json")))
    .map((dir) => {
      const json = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));
      return { dir, name: json.name, private: json.private === true, json };
    });
}

/** The packages npm publishes. */
export const publishedPackages = () => workspacePackages().filter((p) => !p.private);
