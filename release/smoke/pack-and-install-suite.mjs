/**
 * The pack-and-install smoke (issue 31) on one Node.js major, as a vitest suite: every published package,
 * packed as `pnpm publish -r` would pack it and served by a scratch registry (global-setup.mjs), is
 * installed with npm into projects outside the workspace and used as its README says. Each step prints the
 * command it runs; a failure names the step and shows its output. Sizes land in
 * release/test-results/pack-and-install-node<major>.json. One test file per major
 * (test/installed/node<major>.test.mjs) calls it, so that vitest runs two majors at a time, each in a
 * process of its own (the services and scratch folders of one never meet the other's).
 *
 * Must never: skip a check because an earlier one failed — the kernel started by the first checks serves
 * the later ones, and without it they fail saying so.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../workspace.mjs";
import { nodeContext } from "./context.mjs";
import { fetchPage, installKernel, startKernel } from "./kernel.mjs";
import { nodeRuntime } from "./node-runtimes.mjs";
import { npmProject } from "./npm-project.mjs";
import { answerTo, post } from "./pod.mjs";
import { processesMatching } from "./processes.mjs";
import { startEcho, venvWith } from "./python.mjs";
import { madeDirs, removeScratch } from "./scratch.mjs";
import { service, step, stopAll } from "./steps.mjs";
import { MODES, prepareConsumer, tsc } from "./typescript.mjs";

const release = inject("release");
// Room for the check families the protocol gains; a kernel or a native module would blow it at once.
const SUITE_LIMIT_KB = 5.5 * 1024;

/** Declares the suite for `major` (a key of NODE_RELEASES). */
export function packAndInstall(major) {
  describe(`installed from the registry, on Node ${major}`, () => {
    let ctx;
    let kernel;
    let suite;
    let sdk;
    const sizes = {};
    const need = (what, value) => {
      if (!value) throw new Error(`no ${what}: an earlier check of this Node failed`);
      return value;
    };
    const record = (name, project, kb) => {
      const tarball = release.packed.find((p) => p.name === name);
      sizes[name] = { tarballBytes: tarball?.bytes, installKb: kb, packages: project.packages().length };
    };
    const npx = (project, what, args, opts = {}) =>
      step(`Node ${ctx.node}: ${what}`, "npx", args, { cwd: project.dir, env: ctx.env, ...opts });

    beforeAll(async () => {
      ctx = nodeContext(await nodeRuntime(major), release);
    });

    afterAll(async () => {
      await stopAll();
      const out = join(ROOT, "release", "test-results");
      mkdirSync(out, { recursive: true });
      writeFileSync(
        join(out, `pack-and-install-node${major}.json`),
        `${JSON.stringify({ node: ctx?.node, setupSeconds: release.setupSeconds, sizes }, null, 2)}\n`,
      );
      console.table(sizes);
      removeScratch();
    });

    it("runs node and npm from the Node it names", async () => {
      const { stdout } = await step(`Node ${ctx.node}: node --version`, "node", ["--version"], {
        env: ctx.env,
      });
      expect(stdout.trim()).toBe(`v${ctx.node}`);
      const probe = await step(`Node ${ctx.node}: npm's node`, "npm", ["exec", "--", "node", "--version"], {
        env: ctx.env,
        cwd: ctx.home,
      });
      expect(probe.stdout.trim()).toBe(`v${ctx.node}`);
    });

    it("@commonly/cap-kernel: installs, prints --version, provisions, serves, and answers /docs/ and /console/", async () => {
      const project = await installKernel(ctx);
      record("@commonly/cap-kernel", project, await project.sizeKb());
      kernel = await startKernel(ctx, project);
      expect(kernel.version).toBe(ctx.spec("@commonly/cap-kernel").split("@").at(-1));
      for (const path of ["/docs/", "/console/"]) {
        const page = await fetchPage(kernel.url, path);
        expect(`${path} ${page.status} ${page.type}`).toMatch(new RegExp(`^${path} 200 text/html`));
      }
      const ready = await fetchPage(kernel.url, "/readyz");
      expect(ready.status).toBe(200);
    });

    it("@commonly/cap-conformance: installs without the kernel and without a native module, in at most 5.5 MB", async () => {
      suite = await npmProject(`conformance-node${major}`, [ctx.spec("@commonly/cap-conformance")], ctx);
      const kb = await suite.sizeKb();
      record("@commonly/cap-conformance", suite, kb);
      expect(suite.has("@commonly/cap-kernel")).toBe(false);
      expect(suite.packages().filter((p) => p === "better-sqlite3" || p === "pg")).toEqual([]);
      expect(suite.nativeModules()).toEqual([]);
      expect(kb).toBeLessThanOrEqual(SUITE_LIMIT_KB);
    });

    it("cap-conformance run, from that install, passes against the installed kernel; driver there says what to install", async () => {
      const { url, fixture } = need("kernel", kernel);
      const project = need("conformance install", suite);
      const version = await npx(project, "cap-conformance --version", ["cap-conformance", "--version"]);
      expect(version.stdout.trim()).toBe(ctx.spec("@commonly/cap-conformance").split("@").at(-1));
      const report = join(project.dir, "report.json");
      await npx(project, `cap-conformance run against ${url}`, [
        "cap-conformance",
        "run",
        "--fixture",
        fixture,
        "--report",
        `json=${report}`,
      ]);
      const { summary } = JSON.parse(readFileSync(report, "utf8"));
      expect(summary.verdict).toBe("conformant");
      // Driver mode needs the kernel this install lacks: a configuration error that says what to install.
      const refused = await npx(
        project,
        "cap-conformance driver without the kernel",
        ["cap-conformance", "driver", "--command", "true"],
        { expect: 2 },
      );
      expect(refused.output).toContain("npm install --save-dev @commonly/cap-kernel");
    });

    it("@commonly/cap-sdk: a TypeScript consumer type-checks under bundler, node16, nodenext and node", async () => {
      const project = await npmProject(`sdk-node${major}`, [ctx.spec("@commonly/cap-sdk")], ctx);
      record("@commonly/cap-sdk", project, await project.sizeKb());
      const specifiers = await prepareConsumer(ctx, project);
      expect(specifiers).toContain("@commonly/cap-sdk/node");
      // Two at a time: tsc is CPU-bound and the machine has two cores.
      const results = {};
      const modes = Object.keys(MODES);
      for (let i = 0; i < modes.length; i += 2)
        await Promise.all(
          modes.slice(i, i + 2).map(async (mode) => {
            const r = await tsc(ctx, project, mode);
            results[mode] = r.code === 0 ? "ok" : r.output;
          }),
        );
      expect(results).toEqual(Object.fromEntries(Object.keys(MODES).map((m) => [m, "ok"])));
      const missing = await tsc(ctx, project, "missing");
      expect(missing.code).not.toBe(0);
      expect(missing.output).toContain("TS2307");
      const echo = await tsc(ctx, project, "echo");
      expect(echo.code, echo.output).toBe(0);
      sdk = project;
    });

    it("cap-conformance driver, installed with the kernel beside it, passes the SDK's echo example", async () => {
      const echo = join(need("compiled echo example", sdk).dir, "out", "echo.js");
      const project = await npmProject(
        `driver-node${major}`,
        ["--save-dev", ctx.spec("@commonly/cap-kernel"), ctx.spec("@commonly/cap-conformance")],
        ctx,
      );
      const report = join(project.dir, "report.json");
      await npx(project, "cap-conformance driver --command 'node out/echo.js'", [
        "cap-conformance",
        "driver",
        "--command",
        `node ${echo}`,
        "--report",
        `json=${report}`,
      ]);
      const { summary } = JSON.parse(readFileSync(report, "utf8"));
      expect(summary.verdict).toBe("conformant");
    });

    it("@commonly/cli: commonly login, agent attach stub and agent run answer a mention", async () => {
      const { url, provisioned } = need("kernel", kernel);
      const human = provisioned.users[0].token;
      const podId = provisioned.pods[0].id;
      const project = await npmProject(`cli-node${major}`, [ctx.spec("@commonly/cli")], ctx);
      record("@commonly/cli", project, await project.sizeKb());
      const version = await npx(project, "commonly --version", ["commonly", "--version"]);
      expect(version.stdout.trim()).toBe(ctx.spec("@commonly/cli").split("@").at(-1));
      await npx(project, "commonly login", ["commonly", "login", "--url", url, "--token", human]);
      await npx(project, "commonly agent attach stub", [
        "commonly",
        "agent",
        "attach",
        "stub",
        "--pod",
        podId,
        "--name",
        "stub-bot",
      ]);
      // The installed bin itself (not npx around it), so that its own exit on SIGTERM is what is judged.
      const run = service(
        `Node ${ctx.node}: commonly agent run stub-bot`,
        project.bin("commonly"),
        ["agent", "run", "stub-bot"],
        { cwd: project.dir, env: ctx.env },
      );
      await run.waitForOutput(/polling/);
      const asked = await post(url, human, podId, "@stub-bot hello from the pack-and-install smoke");
      const answer = await answerTo(url, human, podId, asked, "stub-bot");
      expect(answer.content).toContain("(stub) received:");
      expect(await run.stop()).toBe(0);
    });

    it("@commonly/cap-spec and @commonly/cap-console: install and load as their READMEs use them", async () => {
      const spec = await npmProject(`spec-node${major}`, [ctx.spec("@commonly/cap-spec")], ctx);
      record("@commonly/cap-spec", spec, await spec.sizeKb());
      const loaded = await step(
        `Node ${ctx.node}: load @commonly/cap-spec`,
        "node",
        [
          "--input-type=module",
          "-e",
          [
            `import { readFileSync } from "node:fs";`,
            `import { createRequire } from "node:module";`,
            `const require = createRequire(process.cwd() + "/");`,
            `const doc = readFileSync(require.resolve("@commonly/cap-spec/cap-v1.openapi.yaml"), "utf8");`,
            `const requirements = JSON.parse(readFileSync(require.resolve("@commonly/cap-spec/requirements.json"), "utf8"));`,
            `await import("@commonly/cap-spec/constants");`,
            `console.log(doc.startsWith("openapi:") || doc.includes("openapi:"), Array.isArray(requirements.requirements ?? requirements));`,
          ].join("\n"),
        ],
        { cwd: spec.dir, env: ctx.env },
      );
      expect(loaded.stdout.trim()).toBe("true true");

      const consoleProject = await npmProject(
        `console-node${major}`,
        [ctx.spec("@commonly/cap-console")],
        ctx,
      );
      record("@commonly/cap-console", consoleProject, await consoleProject.sizeKb());
      const imported = await step(
        `Node ${ctx.node}: import @commonly/cap-console`,
        "node",
        [
          "--input-type=module",
          "-e",
          `const m = await import("@commonly/cap-console"); console.log(Object.keys(m).length > 0);`,
        ],
        { cwd: consoleProject.dir, env: ctx.env },
      );
      expect(imported.stdout.trim()).toBe("true");
    });

    it("commonly-cap: echo.py answers a mention from a venv with the wheel, and from one with the sdist", async () => {
      const { url, provisioned } = need("kernel", kernel);
      const human = provisioned.users[0].token;
      for (const [label, dist, agent] of [
        ["wheel", release.python.wheel, "py-wheel"],
        ["sdist", release.python.sdist, "py-sdist"],
      ]) {
        const venv = await venvWith(`${label}-node${major}`, dist);
        const { token, podId } = provisioned.agents.find((a) => a.name === agent);
        const echo = startEcho(venv, `commonly-cap ${label}`, url, token);
        const asked = await post(url, human, podId, `@${agent} hello from the ${label}`);
        const answer = await answerTo(url, human, podId, asked, agent);
        expect(answer.content).toBe(`echo: hello from the ${label}`);
        await echo.stop();
      }
    });

    it("stops every process it started: no kernel, driver or CLI is left running", async () => {
      need("kernel", kernel);
      await stopAll();
      expect(kernel.serve.exitCode()).not.toBeNull();
      // Anything running in, or from, a scratch folder of this file's run.
      const left = madeDirs().flatMap((dir) => processesMatching(dir));
      expect(left).toEqual([]);
    });
  });
}
