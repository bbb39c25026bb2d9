/**
 * The pack-and-install smoke's own parts, fast and without a registry: that it covers every Node major
 * ci.yml tests, that the registry copy changes only what a release changes, that scratch folders and the
 * environment leak nothing of the workspace, that the workflow runner fails, skips and always()-runs as
 * GitHub does, and that the leftover-process check sees a process that is there.
 */
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { cleanEnv } from "../smoke/clean-env.mjs";
import { NODE_RELEASES } from "../smoke/node-runtimes.mjs";
import { processesMatching } from "../smoke/processes.mjs";
import { asReleased, releaseVersion } from "../smoke/registry.mjs";
import { parentLeaks, removeScratch, scratchDir } from "../smoke/scratch.mjs";
import { runWorkflow } from "../smoke/workflow-steps.mjs";
import { ROOT } from "../workspace.mjs";

const temp = mkdtempSync(join(tmpdir(), "cap-smoke-helpers-"));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
  removeScratch();
});

describe("the Node versions", () => {
  it("are the majors ci.yml's matrix tests, each with its own installed/node<major>.test.mjs", () => {
    const majors = Object.keys(NODE_RELEASES).map(Number);
    const ci = parse(readFileSync(join(ROOT, ".github", "workflows", "ci.yml"), "utf8"));
    expect(majors).toEqual(ci.jobs.test.strategy.matrix.node);
    const files = readdirSync(join(ROOT, "release", "test", "installed")).filter((f) =>
      /^node\d+\.test\.mjs$/.test(f),
    );
    expect(files.sort()).toEqual(majors.map((m) => `node${m}.test.mjs`).sort());
    for (const [major, version] of Object.entries(NODE_RELEASES)) expect(version.split(".")[0]).toBe(major);
  });
});

describe("the registry copy of a tarball's manifest", () => {
  it("takes the release version, raises sibling prerelease ranges with it, and drops publishConfig only", () => {
    const json = {
      name: "@commonly/cap-conformance",
      version: "1.0.0-rc.0",
      dependencies: { "@commonly/cap-sdk": "^1.0.0-rc.0", yaml: "2.9.1" },
      peerDependencies: { "@commonly/cap-kernel": "^1.0.0-rc.0" },
      publishConfig: { access: "public", provenance: true },
      bin: { "cap-conformance": "./dist/bin.js" },
    };
    expect(asReleased(json)).toEqual({
      name: "@commonly/cap-conformance",
      version: "1.0.0",
      dependencies: { "@commonly/cap-sdk": "^1.0.0", yaml: "2.9.1" },
      peerDependencies: { "@commonly/cap-kernel": "^1.0.0" },
      bin: { "cap-conformance": "./dist/bin.js" },
    });
    expect(releaseVersion("1.2.0")).toBe("1.2.0");
    expect(releaseVersion("2.0.0-beta.3")).toBe("2.0.0");
  });
});

describe("scratch folders and the environment", () => {
  it("finds a package.json or node_modules above a folder", () => {
    const inner = join(temp, "project", "inner");
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(temp, "project", "package.json"), "{}");
    expect(parentLeaks(inner)).toContain(join(temp, "project", "package.json"));
  });

  it("hands out folders outside the workspace with nothing above them", () => {
    const dir = scratchDir("helpers");
    expect(dir.startsWith(ROOT)).toBe(false);
    expect(parentLeaks(dir)).toEqual([]);
  });

  it("passes no npm_config_ variable, no workspace or pnpm/npx PATH entry and not the user's HOME", () => {
    const saved = { ...process.env };
    try {
      process.env.npm_config_registry = "http://example.invalid/";
      process.env.PNPM_HOME = "/somewhere";
      process.env.PATH = [
        join(ROOT, "node_modules", ".bin"),
        "/root/.npm/_npx/f64b4edc/node_modules/.bin",
        "/root/.npm/_npx/f64b4edc/node_modules/pnpm/dist/node-gyp-bin",
        "/usr/bin",
      ].join(":");
      const env = cleanEnv({ home: temp, pathFirst: ["/opt/node/bin"], set: { npm_config_cache: "/c" } });
      expect(env.npm_config_registry).toBeUndefined();
      expect(env.PNPM_HOME).toBeUndefined();
      expect(env.PATH).toBe("/opt/node/bin:/usr/bin");
      expect(env.HOME).toBe(temp);
      expect(env.npm_config_cache).toBe("/c");
    } finally {
      process.env = saved;
    }
  });
});

describe("the workflow runner", () => {
  const write = (name, steps) => {
    const file = join(temp, name);
    writeFileSync(
      file,
      JSON.stringify({ name, on: { push: null }, jobs: { one: { "runs-on": "x", steps } } }),
    );
    return file;
  };

  it("runs steps in order, skips the rest after a failure except if: always(), and skips actions/*", async () => {
    const workspace = mkdtempSync(join(temp, "ws-"));
    const file = write("flow.yml", [
      { uses: "actions/checkout@v4" },
      { name: "one", run: 'echo "$GITHUB_WORKSPACE" > one.txt' },
      { name: "fails", run: "false\necho after > after.txt" },
      { name: "never", run: "touch never.txt" },
      { name: "cleanup", if: "always()", run: "touch cleanup.txt" },
    ]);
    const results = await runWorkflow(file, { workspace, env: cleanEnv({ home: temp }), label: "t" });
    expect(results.map((r) => `${r.name}: ${r.status}`)).toEqual([
      "actions/checkout@v4: skipped",
      "one: passed",
      "fails: failed",
      "never: skipped",
      "cleanup: passed",
    ]);
    expect(readFileSync(join(workspace, "one.txt"), "utf8").trim()).toBe(workspace);
    // bash -e: a failing command ends the step, as on GitHub.
    expect(existsSync(join(workspace, "after.txt"))).toBe(false);
    expect(existsSync(join(workspace, "never.txt"))).toBe(false);
    expect(existsSync(join(workspace, "cleanup.txt"))).toBe(true);
  });

  it("runs the composite action from this repository, and refuses what it cannot run faithfully", async () => {
    const workspace = mkdtempSync(join(temp, "ws-"));
    const bogus = write("action.yml", [
      { name: "suite", uses: "someone/cap/.github/actions/cap-conformance@v1", with: { mode: "bogus" } },
    ]);
    const [result] = await runWorkflow(bogus, { workspace, env: cleanEnv({ home: temp }), label: "t" });
    expect(result.status).toBe("failed");
    expect(result.output).toContain('mode must be kernel or driver, got "bogus"');

    const unknownInput = write("input.yml", [
      { uses: "a/b/.github/actions/cap-conformance@v1", with: { nope: 1 } },
    ]);
    await expect(runWorkflow(unknownInput, { workspace, env: {}, label: "t" })).rejects.toThrow(
      /no input "nope"/,
    );
    const condition = write("if.yml", [{ name: "x", if: "github.event_name == 'push'", run: "true" }]);
    await expect(runWorkflow(condition, { workspace, env: {}, label: "t" })).rejects.toThrow(
      /cannot evaluate/,
    );
    const other = write("other.yml", [{ uses: "someone/else@v1" }]);
    await expect(
      runWorkflow(other, { workspace, env: {}, label: "t", jobEnv: { PORT: "1" } }),
    ).rejects.toThrow(/no env PORT/);
    await expect(runWorkflow(other, { workspace, env: {}, label: "t" })).rejects.toThrow(
      /no local equivalent/,
    );
  });
});

describe("services", () => {
  it.each(["SIGTERM", "SIGINT"])("go when the process that started them gets %s", async (signal) => {
    const dir = mkdtempSync(join(temp, "svc-"));
    const script = join(dir, "start.mjs");
    const steps = join(ROOT, "release", "smoke", "steps.mjs");
    writeFileSync(
      script,
      `import { service } from ${JSON.stringify(steps)};\nservice("sleeper", "sleep", ["60"], { cwd: ${JSON.stringify(dir)} });\nconsole.log("started");\nsetInterval(() => {}, 1000);\n`,
    );
    const parent = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise((r) => parent.stdout.on("data", (d) => String(d).includes("started") && r()));
    await waitForCheck(() => processesMatching(dir).some((p) => p.cmdline === "sleep 60"));
    parent.kill(signal);
    await new Promise((r) => parent.once("close", r));
    await waitForCheck(() => processesMatching(dir).length === 0);
    expect(processesMatching(dir)).toEqual([]);
  });
});

async function waitForCheck(check) {
  for (let i = 0; i < 50 && !check(); i++) await new Promise((r) => setTimeout(r, 100));
}

describe("the leftover-process check", () => {
  it("sees a process working in a folder while it runs, and not after it has exited", async () => {
    const dir = mkdtempSync(join(temp, "proc-"));
    const child = spawn("sleep", ["30"], { cwd: dir, stdio: "ignore" });
    await new Promise((r) => child.once("spawn", r));
    expect(processesMatching(dir).map((p) => p.pid)).toEqual([child.pid]);
    child.kill();
    await new Promise((r) => child.once("close", r));
    expect(processesMatching(dir)).toEqual([]);
  });
});
