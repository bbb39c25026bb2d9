/**
 * Every package npm publishes carries what a registry page, a provenance check and an install outside this
 * repository need, and its tarball (as `pnpm pack` builds it, the same packer `pnpm publish -r` uses) holds
 * LICENSE, README, the built dist/ and nothing of the tests.
 */
import { execFile, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { PYTHON_PACKAGE, publishedPackages, REPOSITORY, ROOT, workspacePackages } from "../workspace.mjs";

const published = publishedPackages();
const rootLicense = readFileSync(join(ROOT, "LICENSE"), "utf8");
const SIBLING_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];

// The pinned pnpm (root package.json's packageManager): a global one if it is that version, npx otherwise.
function pnpmCommand() {
  const pinned = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).packageManager.split("@")[1];
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  return probe.status === 0 && probe.stdout.trim() === pinned ? ["pnpm"] : ["npx", "-y", `pnpm@${pinned}`];
}

describe("the published packages", () => {
  it("are the six this repository releases to npm (a new one must meet every check below)", () => {
    expect(published.map((p) => p.name).sort()).toEqual([
      "@commonly/cap-conformance",
      "@commonly/cap-console",
      "@commonly/cap-kernel",
      "@commonly/cap-sdk",
      "@commonly/cap-spec",
      "@commonly/cli",
    ]);
  });

  describe.each(published.map((p) => [p.name, p]))("%s", (_name, { dir, json }) => {
    it("declares Apache-2.0 and ships the root LICENSE text, byte for byte", () => {
      expect(json.license).toBe("Apache-2.0");
      expect(readFileSync(join(ROOT, dir, "LICENSE"), "utf8")).toBe(rootLicense);
    });

    it("points at its folder of the repository, its README there and the issue tracker", () => {
      expect(json.repository).toEqual({ type: "git", url: `git+${REPOSITORY}.git`, directory: dir });
      expect(json.homepage).toBe(`${REPOSITORY}/tree/main/${dir}#readme`);
      expect(json.bugs).toEqual({ url: `${REPOSITORY}/issues` });
    });

    it("says which Node it runs on, and publishes publicly with provenance", () => {
      expect(json.engines?.node).toMatch(/^(>=|\^)\d+/);
      expect(json.publishConfig).toEqual({ access: "public", provenance: true });
    });

    it("builds dist/ before it is packed, so a publish from a clean checkout ships it", () => {
      if (!json.scripts?.build) {
        // Only the spec has no build: it ships committed generated files, which the drift check keeps current.
        expect(dir).toBe("spec");
        return;
      }
      // The build first; a pack-time step may follow it (the console copies the built docs site in).
      expect(json.scripts.prepack ?? json.scripts.prepublishOnly).toMatch(/^pnpm run build( && .+)?$/);
      expect(json.files).toContain("dist");
    });

    it("depends on its siblings as workspace:^, which publishing turns into ^x.y.z ranges", () => {
      for (const field of SIBLING_FIELDS)
        for (const [dep, range] of Object.entries(json[field] ?? {}))
          if (dep.startsWith("@commonly/"))
            expect(`${field} ${dep} ${range}`).toBe(`${field} ${dep} workspace:^`);
    });
  });
});

describe("their tarballs, as pnpm packs them", () => {
  const listings = new Map();
  beforeAll(async () => {
    const [cmd, ...pre] = pnpmCommand();
    // Scripts off: the listing of what is built now, without rebuilding (turbo built it before this test).
    const args = [...pre, "pack", "--dry-run", "--json", "--config.ignore-scripts=true"];
    await Promise.all(
      published.map(async ({ dir, name }) => {
        const { stdout } = await promisify(execFile)(cmd, args, { cwd: join(ROOT, dir), maxBuffer: 1 << 24 });
        listings.set(
          name,
          JSON.parse(stdout).files.map((f) => f.path),
        );
      }),
    );
  }, 120_000);

  describe.each(published.map((p) => [p.name, p]))("%s", (name, { dir, json }) => {
    it("hold package.json, LICENSE and README.md, and dist/ where the package builds one", () => {
      const files = listings.get(name);
      for (const f of ["package.json", "LICENSE", "README.md"]) expect(files).toContain(f);
      if (json.scripts?.build) {
        expect(files.some((f) => f.startsWith("dist/") && f.endsWith(".js"))).toBe(true);
        for (const target of Object.values(json.bin ?? {})) expect(files).toContain(posix.normalize(target));
      }
    });

    it("hold no tests", () => {
      const tests = listings
        .get(name)
        .filter(
          (f) => /(^|\/)(test|tests|__tests__|fixtures)\//.test(f) || /\.(test|spec)\.[cm]?[jt]s$/.test(f),
        );
      expect(tests).toEqual([]);
    });

    it("hold a source map only where the sources it names are shipped too", () => {
      const files = new Set(listings.get(name));
      const dangling = [];
      for (const map of [...files].filter((f) => f.endsWith(".map"))) {
        const { sources } = JSON.parse(readFileSync(join(ROOT, dir, map), "utf8"));
        for (const source of sources) {
          const shipped = posix.normalize(posix.join(posix.dirname(map), source));
          if (!files.has(shipped)) dangling.push(`${map} → ${shipped}`);
        }
      }
      expect(dangling).toEqual([]);
    });
  });
});

describe("the Python package", () => {
  it("ships the root LICENSE text in its wheel and sdist (pyproject license-files; sdk-py's tests build both)", () => {
    const dir = join(ROOT, PYTHON_PACKAGE.dir);
    expect(readFileSync(join(dir, "LICENSE"), "utf8")).toBe(rootLicense);
    const pyproject = readFileSync(join(dir, "pyproject.toml"), "utf8");
    expect(pyproject).toMatch(/^license = "Apache-2\.0"$/m);
    expect(pyproject).toMatch(/^license-files = \["LICENSE"\]$/m);
    expect(pyproject).toContain(`Repository = "${REPOSITORY}"`);
  });

  it("is a private workspace package, so npm never publishes it", () => {
    const sdkPy = workspacePackages().find((p) => p.dir === PYTHON_PACKAGE.dir);
    expect(sdkPy).toMatchObject({ name: PYTHON_PACKAGE.name, private: true });
  });
});

describe("the repository", () => {
  it("has the Apache License 2.0 text at its root", () => {
    expect(rootLicense).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    expect(rootLicense).toContain("END OF TERMS AND CONDITIONS");
  });
});
