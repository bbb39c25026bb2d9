/**
 * The suite installed without the reference kernel (issue 31): `@commonly/cap-kernel` is an optional peer,
 * so `run`, `list` and `--version` work where it is absent, and `driver`, which plays the kernel with it,
 * says which package to install (exit 2). The built binary runs with the kernel package hidden by a
 * resolution hook that fails exactly as Node does for a missing package (the kernel's
 * test/helpers/hide-packages.mjs); the kernel under test runs in its own process, as someone else's would.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import {
  freshSqliteUrl,
  provisionConformance,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { KERNEL_PACKAGE, loadReferenceKernel } from "../src/driver/reference-kernel.js";

const BIN = join(import.meta.dirname, "..", "dist", "bin.js");
const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"));
const kernelDir = dirname(createRequire(import.meta.url).resolve("@commonly/cap-kernel/package.json"));
const HIDE = pathToFileURL(join(kernelDir, "test", "helpers", "hide-packages.mjs")).href;

/** The built cap-conformance with the kernel package hidden; resolves with the exit code and output. */
async function suite(args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", HIDE, BIN, ...args], {
      env: { ...process.env, CAP_TEST_HIDE_PACKAGES: KERNEL_PACKAGE },
      timeout: 120_000,
      maxBuffer: 1 << 24,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

let kernel: TestKernel;
let fixturePath: string;
beforeAll(async () => {
  const db = freshSqliteUrl();
  kernel = await startKernel({ db, leaseSeconds: 1, maxAttempts: 3, provision: false });
  ({ path: fixturePath } = await provisionConformance({
    db,
    leaseSeconds: 1,
    maxAttempts: 3,
    baseUrl: kernel.url,
  }));
});
afterAll(async () => {
  await kernel?.stop();
});

describe("@commonly/cap-conformance without @commonly/cap-kernel", () => {
  it("declares the kernel an optional peer, not a dependency", () => {
    expect(pkg.dependencies[KERNEL_PACKAGE]).toBeUndefined();
    expect(pkg.peerDependencies[KERNEL_PACKAGE]).toBe("workspace:^");
    expect(pkg.peerDependenciesMeta[KERNEL_PACKAGE]).toEqual({ optional: true });
  });

  it("publishes declarations that never import the kernel, so a strict consumer without it type-checks", () => {
    // Every declaration file reachable from the package's typed export, by its relative imports.
    const seen = new Set<string>();
    const importingKernel: string[] = [];
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bfrom\s+"([^"]+)"|\bimport\("([^"]+)"\)/g)) {
        const spec = m[1] ?? m[2] ?? "";
        if (spec === KERNEL_PACKAGE || spec.startsWith(`${KERNEL_PACKAGE}/`)) importingKernel.push(file);
        else if (spec.startsWith(".")) walk(join(dirname(file), spec.replace(/\.js$/, ".d.ts")));
      }
    };
    walk(join(import.meta.dirname, "..", pkg.exports["."].types));
    expect(seen.size).toBeGreaterThan(20);
    expect(importingKernel).toEqual([]);
  });

  it("prints its version and lists its checks", async () => {
    expect(await suite(["--version"])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    const list = await suite(["list", "--json"]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).length).toBeGreaterThan(50);
  });

  it("runs against a kernel", async () => {
    const r = await suite(["run", "--fixture", fixturePath, "--only", "info.*", "--only", "auth.*"]);
    expect(r.stdout).toMatch(/— conformant \(MUST \+ SHOULD\) \(exit 0\)/);
    expect(r.code).toBe(0);
  });

  it("refuses driver mode with a message naming the package to install (exit 2)", async () => {
    const r = await suite(["driver", "--command", "true"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "cap-conformance driver plays the kernel with the reference kernel, @commonly/cap-kernel, which is not installed.",
    );
    expect(r.stderr).toContain("npm install --save-dev @commonly/cap-kernel @commonly/cap-conformance");
    expect(r.stderr).toContain(
      "npx -p @commonly/cap-conformance -p @commonly/cap-kernel cap-conformance driver",
    );
    expect(r.stderr).not.toContain("harness error");
  });
});

describe("loadReferenceKernel", () => {
  it("loads the installed kernel", async () => {
    expect(typeof (await loadReferenceKernel()).buildApp).toBe("function");
  });

  it("turns only a missing package into a ConfigError", async () => {
    await expect(loadReferenceKernel("@commonly/no-such-kernel")).rejects.toBeInstanceOf(ConfigError);
    // A package that is there but fails to load is not "not installed".
    await expect(loadReferenceKernel("data:text/javascript,throw new Error('broken build')")).rejects.toThrow(
      /^broken build$/,
    );
  });
});
