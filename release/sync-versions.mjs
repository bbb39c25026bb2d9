#!/usr/bin/env node
/**
 * Carries the versions `changeset version` wrote into package.json files to the places changesets does not
 * know about, so one Version PR moves every copy of a version at once:
 *   - sdk-ts/src/version.ts (`SDK_VERSION`, sent as the SDK's User-Agent) from sdk-ts/package.json;
 *   - sdk-py/pyproject.toml and sdk-py/cap_sdk/_version.py from sdk-py/package.json, the Python SDK's
 *     version as changesets sees it (a private workspace package), spelled as PEP 440 wants it
 *     (1.0.0-rc.0 → 1.0.0rc0).
 * Run by `pnpm version-packages` (release.yml's version step) after `changeset version`; `--check` writes
 * nothing and exits 1 naming every copy that differs (a test runs it on the tree).
 * It must never invent a version: a semver prerelease PEP 440 cannot spell is an error, not a guess.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A semver version as PEP 440 spells it; throws for prereleases PEP 440 has no word for. */
export function pep440(version) {
  const m = /^(\d+\.\d+\.\d+)(?:-(alpha|a|beta|b|rc)\.(\d+))?$/.exec(version);
  if (!m) throw new Error(`${version}: no PEP 440 spelling (use x.y.z or x.y.z-alpha.N / -beta.N / -rc.N)`);
  if (!m[2]) return m[1];
  const kind = { alpha: "a", a: "a", beta: "b", b: "b", rc: "rc" }[m[2]];
  return `${m[1]}${kind}${Number(m[3])}`;
}

/** Each derived copy: where it lives, the version it must hold, how to read and rewrite it. */
function copies(root) {
  const version = (dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).version;
  const ts = version("sdk-ts");
  const py = pep440(version("sdk-py"));
  return [
    { file: "sdk-ts/src/version.ts", want: ts, pattern: /(export const SDK_VERSION = ")([^"]*)(";)/ },
    // Only the [project] table's version: the first `version = "…"` line at the start of a line.
    { file: "sdk-py/pyproject.toml", want: py, pattern: /(^version = ")([^"]*)(")/m },
    { file: "sdk-py/cap_sdk/_version.py", want: py, pattern: /(^__version__ = ")([^"]*)(")/m },
  ];
}

/** Rewrites (or, with `check`, only compares) every copy; returns the copies that differed. */
export function syncVersions(root, { check = false } = {}) {
  const stale = [];
  for (const { file, want, pattern } of copies(root)) {
    const path = join(root, file);
    const text = readFileSync(path, "utf8");
    const found = pattern.exec(text);
    if (!found) throw new Error(`${file}: no version line matching ${pattern}`);
    if (found[2] === want) continue;
    stale.push({ file, found: found[2], want });
    if (!check) writeFileSync(path, text.replace(pattern, `$1${want}$3`));
  }
  return stale;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const check = process.argv.includes("--check");
  const stale = syncVersions(root, { check });
  for (const s of stale) console.log(`${s.file}: ${s.found} → ${s.want}${check ? " (stale)" : ""}`);
  if (check && stale.length > 0) process.exit(1);
}
