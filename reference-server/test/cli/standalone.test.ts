/**
 * What a kernel installed from npm needs and says (issue 31): `--version`; the docs site given with
 * `--docs-dir` / CAP_DOCS_DIR; and its optional peers — `pg` for a postgres:// store, `openapi-fetch` for
 * the testing kit — absent, as in an operator's install: SQLite serves without loading either, a
 * postgres:// store and the testing kit say which package to install. Absence is simulated with a
 * resolution hook (test/helpers/hide-packages.mjs) that fails exactly as Node does for a missing package.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { spawnProcess } from "../../src/testing/index.js";
import { BIN } from "../helpers/process.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const HIDE = pathToFileURL(fileURLToPath(new URL("../helpers/hide-packages.mjs", import.meta.url))).href;
const TESTING = fileURLToPath(new URL("../../dist/testing/index.js", import.meta.url));

const run = promisify(execFile);
/** Runs node with `args` and the named packages hidden; resolves with the exit code and output. */
async function node(args: string[], hide: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", HIDE, ...args], {
      env: { ...process.env, ...env, CAP_TEST_HIDE_PACKAGES: hide.join(",") },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** `cap-kernel serve` on a fresh SQLite store with `args`, the named packages hidden; resolves its URL. */
async function serve(args: string[], hide: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const p = spawnProcess(
    process.execPath,
    [
      "--import",
      HIDE,
      BIN,
      "serve",
      "--port",
      "0",
      "--log-level",
      "warn",
      "--db",
      "sqlite::memory:",
      ...args,
    ],
    { env: { ...process.env, ...env, CAP_TEST_HIDE_PACKAGES: hide.join(",") }, name: "cap-kernel serve" },
  );
  stops.push(() => p.stop());
  return (await p.waitForOutput(/listening on (http:\/\/\S+)/, 30_000))[1]!;
}

function docsSite(title: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "cap-docs-dir-")), "site");
  mkdirSync(dir);
  writeFileSync(join(dir, "index.html"), `<!doctype html><title>${title}</title>`);
  return dir;
}

describe("cap-kernel --version", () => {
  it.each([["--version"], ["-V"]])("%s prints the version in the package's package.json", async (flag) => {
    const r = await node([BIN, flag], []);
    expect([r.code, r.stdout.trim()]).toEqual([0, pkg.version]);
  });
});

describe("the docs site an installed kernel serves", () => {
  it("is the folder --docs-dir names", async () => {
    const url = await serve(["--docs-dir", docsSite("from the flag")]);
    const res = await fetch(`${url}/docs/`);
    expect([res.status, await res.text()]).toEqual([200, "<!doctype html><title>from the flag</title>"]);
  });

  it("is the folder CAP_DOCS_DIR names, when no flag does", async () => {
    const url = await serve([], [], { CAP_DOCS_DIR: docsSite("from the environment") });
    expect(await (await fetch(`${url}/docs/`)).text()).toContain("from the environment");
  });
});

describe("the optional peers (pg, openapi-fetch)", () => {
  it("are optional peers, not dependencies an operator always installs", () => {
    for (const name of ["pg", "openapi-fetch"]) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.peerDependencies[name]).toMatch(/^\^/);
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
    }
  });

  it("are never loaded by a SQLite kernel: it is ready, answers CAP and serves the console without them", async () => {
    const url = await serve([], ["pg", "openapi-fetch"]);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/api/agents/runtime/events`)).status).toBe(401);
    expect((await fetch(`${url}/console/`)).status).toBe(200);
  });

  it("a postgres:// store without pg says which package to install, and exits 1", async () => {
    const r = await node([BIN, "serve", "--port", "0", "--db", "postgres://127.0.0.1:9/none"], ["pg"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("a postgres:// store needs the pg package, which is not installed");
    expect(r.stderr).toContain("npm install @commonly/cap-kernel pg");
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
  });

  it("the testing kit without openapi-fetch loads, and starting a kernel says which package to add", async () => {
    const kit = JSON.stringify(TESTING);
    const r = await node(
      [
        "--input-type=module",
        "-e",
        `const kit = await import(${kit}); console.log(typeof kit.eventually); await kit.startKernel();`,
      ],
      ["openapi-fetch"],
    );
    expect(r.stdout).toBe("function\n");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "@commonly/cap-kernel/testing (its admin client) needs openapi-fetch, an optional peer dependency",
    );
    expect(r.stderr).toContain("npm install --save-dev openapi-fetch@^0.17.0");
  });
});

describe("the testing kit from CommonJS", () => {
  it("can be required (no top-level await): its optional peers load where they are used", async () => {
    const r = await node(["-e", `console.log(typeof require(${JSON.stringify(TESTING)}).startKernel)`], []);
    expect([r.code, r.stdout]).toEqual([0, "function\n"]);
  });
});
