/**
 * The release is one reviewed step: pending changesets name only packages that are released, `changeset
 * version` (run here on a scratch copy of the workspace's manifests) gives every package it bumps a CHANGELOG
 * entry for its new version, and release/sync-versions.mjs carries those versions to the copies changesets
 * does not know about (SDK_VERSION, pyproject.toml, _version.py) in the spelling each needs.
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { pep440, syncVersions } from "../sync-versions.mjs";
import { PYTHON_PACKAGE, publishedPackages, ROOT, workspacePackages } from "../workspace.mjs";

const config = JSON.parse(readFileSync(join(ROOT, ".changeset", "config.json"), "utf8"));
const changesetFiles = readdirSync(join(ROOT, ".changeset")).filter(
  (f) => f.endsWith(".md") && f !== "README.md",
);
const released = [...publishedPackages().map((p) => p.name), PYTHON_PACKAGE.name].sort();
const scratchDirs = [];
afterAll(() => {
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});

function frontmatter(file) {
  const text = readFileSync(join(ROOT, ".changeset", file), "utf8");
  const m = /^---\n([\s\S]*?)\n---\n+([\s\S]+)$/.exec(text);
  if (!m) throw new Error(`${file}: no frontmatter`);
  return { bumps: parse(m[1]) ?? {}, summary: m[2].trim() };
}

/** A scratch workspace: the root manifest, the changesets, every package.json and CHANGELOG, and the version copies. */
function scratchWorkspace() {
  const dir = mkdtempSync(join(tmpdir(), "cap-changesets-"));
  scratchDirs.push(dir);
  const copy = (rel) => {
    if (!existsSync(join(ROOT, rel))) return;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    cpSync(join(ROOT, rel), join(dir, rel), { recursive: true });
  };
  for (const f of ["package.json", "pnpm-workspace.yaml", ".changeset"]) copy(f);
  for (const { dir: pkg } of workspacePackages())
    for (const f of ["package.json", "CHANGELOG.md"]) copy(`${pkg}/${f}`);
  for (const f of ["sdk-ts/src/version.ts", "sdk-py/pyproject.toml", "sdk-py/cap_sdk/_version.py"]) copy(f);
  return dir;
}
const versionIn = (dir, pkg) => JSON.parse(readFileSync(join(dir, pkg, "package.json"), "utf8")).version;

describe(".changeset/config.json", () => {
  it("publishes publicly and releases exactly the npm packages and the Python SDK", () => {
    expect(config).toMatchObject({ access: "public", baseBranch: "main", commit: false });
    // Private packages are versioned and tagged (the Python SDK's tag is what starts its PyPI publish) …
    expect(config.privatePackages).toEqual({ version: true, tag: true });
    // … except those ignored: every other private package.
    const ignored = (name) =>
      config.ignore.some((pattern) =>
        pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
      );
    const releasedHere = workspacePackages()
      .filter((p) => !ignored(p.name))
      .map((p) => p.name)
      .sort();
    expect(releasedHere).toEqual(released);
  });
});

describe("pending changesets", () => {
  it.each(changesetFiles)(
    "%s names released packages, each with major, minor or patch, and says what changed",
    (file) => {
      const { bumps, summary } = frontmatter(file);
      expect(Object.keys(bumps).length).toBeGreaterThan(0);
      for (const [name, bump] of Object.entries(bumps)) {
        expect(released, name).toContain(name);
        expect(["major", "minor", "patch"], `${name}: ${bump}`).toContain(bump);
      }
      expect(summary.length).toBeGreaterThan(40);
    },
  );
});

describe("changeset version, on a scratch copy of the workspace", () => {
  it("gives every package it bumps a CHANGELOG entry for its new version, and sync-versions follows", () => {
    const dir = scratchWorkspace();
    const before = Object.fromEntries(workspacePackages().map((p) => [p.dir, p.json.version]));
    const bumped = new Set(changesetFiles.flatMap((f) => Object.keys(frontmatter(f).bumps)));
    execFileSync(process.execPath, [join(ROOT, "node_modules", "@changesets", "cli", "bin.js"), "version"], {
      cwd: dir,
      stdio: "pipe",
    });
    for (const { dir: pkg, name } of workspacePackages()) {
      const after = versionIn(dir, pkg);
      if (!bumped.has(name)) {
        expect(`${name} ${after}`).toBe(`${name} ${before[pkg]}`);
        continue;
      }
      expect(after, name).not.toBe(before[pkg]);
      const changelog = readFileSync(join(dir, pkg, "CHANGELOG.md"), "utf8");
      expect(changelog.startsWith(`# ${name}\n\n## ${after}\n`), `${pkg}/CHANGELOG.md`).toBe(true);
    }
    expect(
      readdirSync(join(dir, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md"),
    ).toEqual([]);
    syncVersions(dir);
    expect(syncVersions(dir, { check: true })).toEqual([]);
    expect(readFileSync(join(dir, "sdk-ts/src/version.ts"), "utf8")).toContain(
      `SDK_VERSION = "${versionIn(dir, "sdk-ts")}"`,
    );
    expect(readFileSync(join(dir, "sdk-py/cap_sdk/_version.py"), "utf8")).toContain(
      `__version__ = "${pep440(versionIn(dir, "sdk-py"))}"`,
    );
  });

  // Once 1.0.0 is released its changeset is consumed and this reports as skipped.
  it.runIf(changesetFiles.includes("cap-v1-first-release.md"))(
    "takes this first release's packages from 1.0.0-rc.0 to 1.0.0 while the 1.0.0 changeset is pending",
    () => {
      const dir = scratchWorkspace();
      execFileSync(
        process.execPath,
        [join(ROOT, "node_modules", "@changesets", "cli", "bin.js"), "version"],
        {
          cwd: dir,
          stdio: "pipe",
        },
      );
      for (const { dir: pkg } of [...publishedPackages(), PYTHON_PACKAGE])
        expect(versionIn(dir, pkg), pkg).toBe("1.0.0");
    },
  );
});

describe("release/sync-versions.mjs", () => {
  it.each([
    ["1.0.0", "1.0.0"],
    ["1.0.0-rc.0", "1.0.0rc0"],
    ["2.3.4-beta.12", "2.3.4b12"],
    ["0.1.0-alpha.3", "0.1.0a3"],
  ])("spells %s as %s for Python", (semver, python) => {
    expect(pep440(semver)).toBe(python);
  });

  it.each(["1.0.0-next.1", "0.0.0-snapshot-20260101", "1.0"])(
    "refuses %s, which PEP 440 has no word for",
    (v) => {
      expect(() => pep440(v)).toThrow(/PEP 440/);
    },
  );

  it("finds every copy in this tree equal to its package.json", () => {
    expect(syncVersions(ROOT, { check: true })).toEqual([]);
  });

  it("rewrites only the version of each copy", () => {
    const dir = scratchWorkspace();
    const pyproject = readFileSync(join(dir, "sdk-py/pyproject.toml"), "utf8");
    for (const pkg of ["sdk-ts", "sdk-py"]) {
      const file = join(dir, pkg, "package.json");
      const json = JSON.parse(readFileSync(file, "utf8"));
      writeFileSync(file, JSON.stringify({ ...json, version: "7.8.9-rc.2" }));
    }
    expect(syncVersions(dir).map((s) => s.file)).toEqual([
      "sdk-ts/src/version.ts",
      "sdk-py/pyproject.toml",
      "sdk-py/cap_sdk/_version.py",
    ]);
    const after = readFileSync(join(dir, "sdk-py/pyproject.toml"), "utf8");
    expect(after).toBe(pyproject.replace(/^version = ".*"$/m, 'version = "7.8.9rc2"'));
    expect(readFileSync(join(dir, "sdk-ts/src/version.ts"), "utf8")).toContain('SDK_VERSION = "7.8.9-rc.2"');
  });
});
