/**
 * The copy-paste workflows (examples/kernel-ci, examples/driver-ci) work as written for a repository outside
 * this one once the packages are published: their steps run unchanged (release/smoke/workflow-steps.mjs) in
 * a scratch "repository", with `@commonly/…@1` answered by the scratch registry that holds the packed
 * packages as the release will publish them, `npm install --global` going to a scratch prefix, and the
 * composite action run from .github/actions/cap-conformance. Afterwards no kernel may be left running.
 * The `uses:` line must name this repository's action at the tag the release workflow moves.
 */
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { nodeContext } from "../../smoke/context.mjs";
import { nodeRuntime } from "../../smoke/node-runtimes.mjs";
import { processesMatching } from "../../smoke/processes.mjs";
import { removeScratch, scratchDir } from "../../smoke/scratch.mjs";
import { stopAll } from "../../smoke/steps.mjs";
import { runWorkflow, workflowJob } from "../../smoke/workflow-steps.mjs";
import { REPOSITORY, ROOT } from "../../workspace.mjs";

const release = inject("release");
const KERNEL_CI = join(ROOT, "examples", "kernel-ci", "cap-conformance.yml");
const DRIVER_CI = join(ROOT, "examples", "driver-ci", "cap-driver-conformance.yml");
const REPORTS = ["report.json", "report.xml", "report.md", "report.html"];

let ctx;
beforeAll(async () => {
  ctx = nodeContext(await nodeRuntime(Number(process.versions.node.split(".")[0])), release);
});
afterAll(async () => {
  await stopAll();
  removeScratch();
});

/** A runner's environment: npm's global prefix (`npm install --global`) is a scratch folder on PATH. */
function runnerEnv() {
  const prefix = scratchDir("runner-global");
  return { ...ctx.env, npm_config_prefix: prefix, PATH: `${join(prefix, "bin")}:${ctx.env.PATH}` };
}

const failures = (results) =>
  results.filter((r) => r.status === "failed").map((r) => `${r.name}: exit ${r.code}\n${r.output}`);

const portAnswers = (port) =>
  new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

describe("the cap-conformance action's address", () => {
  const conformance = release.published.find((p) => p.name === "@commonly/cap-conformance");
  const owner = new URL(REPOSITORY).pathname.slice(1);
  it.each([KERNEL_CI, DRIVER_CI])("%s uses this repository's action at the suite's major tag", (file) => {
    const uses = workflowJob(file)
      .job.steps.map((s) => s.uses)
      .filter((u) => u?.includes("cap-conformance"));
    expect(uses).toEqual([`${owner}/.github/actions/cap-conformance@v${conformance.version.split(".")[0]}`]);
  });

  it("release.yml moves that tag when it publishes the suite", () => {
    const release = parse(readFileSync(join(ROOT, ".github", "workflows", "release.yml"), "utf8"));
    const move = release.jobs.npm.steps.find((s) => /action's major tag/.test(s.name ?? ""));
    expect(move?.if).toContain("'@commonly/cap-conformance'");
    expect(move.run).toMatch(/git tag -f "v\$major"/);
    expect(move.run).toMatch(/git push -f origin "refs\/tags\/v\$major"/);
  });
});

describe("examples/kernel-ci/cap-conformance.yml, run as written", () => {
  it("installs, starts and provisions the kernel, passes the suite, writes the reports, and stops the kernel", async () => {
    const workspace = scratchDir("kernel-ci-repo");
    const port = String(await freePort());
    let runningAfterStart = [];
    const results = await runWorkflow(KERNEL_CI, {
      workspace,
      env: runnerEnv(),
      jobEnv: { KERNEL_PORT: port },
      label: "kernel-ci",
      afterStep: (name) => {
        if (name === "Start the kernel under test") runningAfterStart = processesMatching(workspace);
      },
    });
    // The kernel was there to stop (so the check below can fail), and the workflow stopped it.
    expect(runningAfterStart.map((p) => p.cmdline).join("\n")).toMatch(/cap-kernel serve/);
    expect(failures(results)).toEqual([]);
    expect(results.map((r) => `${r.name}: ${r.status}`)).toContain("Stop the kernel: passed");
    expect(processesMatching(workspace)).toEqual([]);
    expect(await portAnswers(port)).toBe(false);

    const action = results.find((r) => r.name === "Run cap-conformance");
    expect(action.outputs).toMatchObject({ verdict: "conformant", "exit-code": "0" });
    for (const f of REPORTS) expect(existsSync(join(workspace, "cap-conformance-reports", f)), f).toBe(true);
    expect(readFileSync(join(workspace, ".step-summary.md"), "utf8")).toContain("## Support table");
  });
});

describe("examples/driver-ci/cap-driver-conformance.yml, run as written", () => {
  it("proves examples/python's driver with the suite and the kernel npx installs, and leaves nothing running", async () => {
    const workspace = scratchDir("driver-ci-repo");
    copyFileSync(join(ROOT, "examples", "python", "echo_driver.py"), join(workspace, "echo_driver.py"));
    const results = await runWorkflow(DRIVER_CI, {
      workspace,
      env: runnerEnv(),
      label: "driver-ci",
    });
    expect(failures(results)).toEqual([]);
    const action = results.find((r) => r.name === "Run cap-conformance driver");
    expect(action.outputs).toMatchObject({ verdict: "conformant", "exit-code": "0" });
    const report = JSON.parse(
      readFileSync(join(workspace, "cap-conformance-reports", "report.json"), "utf8"),
    );
    expect(report.mode).toBe("driver");
    for (const f of REPORTS) expect(existsSync(join(workspace, "cap-conformance-reports", f)), f).toBe(true);
    const summary = readFileSync(join(workspace, ".step-summary.md"), "utf8");
    expect(summary).toContain("# CAP v1 driver conformance");
    expect(processesMatching(workspace)).toEqual([]);
  });
});

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
