#!/usr/bin/env node
// Proves cap-driver-conformance.yml works: runs its steps, in order, in a scratch "driver repository"
// holding examples/python/echo_driver.py — `run:` steps under bash, the cap-conformance action through its
// own run.sh with the step's `with:` inputs (plus the action's defaults) and the local cap-conformance
// build; `actions/*` steps need no equivalent here and are skipped. Exits non-zero when any step fails or
// the verdict is not "conformant". Run: node examples/driver-ci/prove.mjs
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const actionDir = join(root, ".github", "actions", "cap-conformance");
const workflow = parse(readFileSync(join(here, "cap-driver-conformance.yml"), "utf8"));
const action = parse(readFileSync(join(actionDir, "action.yml"), "utf8"));
const conformanceBin = `node ${join(root, "conformance", "dist", "bin.js")}`;

const job = Object.values(workflow.jobs)[0];
// The driver repository this workflow was copied into: here, the Python example.
const workspace = mkdtempSync(join(tmpdir(), "cap-driver-ci-"));
copyFileSync(join(root, "examples", "python", "echo_driver.py"), join(workspace, "echo_driver.py"));
const env = {
  ...process.env,
  ...job.env,
  GITHUB_WORKSPACE: workspace,
  GITHUB_STEP_SUMMARY: join(workspace, "step-summary.md"),
  GITHUB_OUTPUT: join(workspace, "step-output.txt"),
  GITHUB_ACTION_PATH: actionDir,
};

function runStep(step) {
  if (step.run)
    return spawnSync("bash", ["-e", "-c", step.run], { cwd: workspace, env, stdio: "inherit" }).status;
  if (/(^|\/)\.github\/actions\/cap-conformance(@.*)?$/.test(step.uses ?? "")) {
    const inputs = { ...step.with };
    for (const name of Object.keys(inputs))
      if (!(name in action.inputs))
        throw new Error(`the workflow passes "${name}", which action.yml does not declare`);
    const actionEnv = { ...env, CAP_CONFORMANCE_BIN: conformanceBin };
    for (const [name, spec] of Object.entries(action.inputs)) {
      const value = inputs[name] ?? spec.default ?? "";
      if (spec.required && value === "") throw new Error(`the workflow omits the required input "${name}"`);
      actionEnv[`INPUT_${name.toUpperCase().replaceAll("-", "_")}`] = String(value);
    }
    return spawnSync(join(actionDir, "run.sh"), [], { cwd: workspace, env: actionEnv, stdio: "inherit" })
      .status;
  }
  if (/^actions\//.test(step.uses ?? "")) {
    console.log(`prove: skipping ${step.uses} (nothing to do outside GitHub)`);
    return 0;
  }
  throw new Error(`prove: no local equivalent for step ${JSON.stringify(step.name ?? step.uses)}`);
}

let failed = false;
for (const step of job.steps) {
  const always = /always\(\)/.test(String(step.if ?? ""));
  if (failed && !always) continue;
  console.log(`\nprove: step "${step.name ?? step.uses}"`);
  const status = runStep(step);
  if (status !== 0) {
    console.error(`prove: step "${step.name ?? step.uses}" exited ${status}`);
    failed = true;
  }
}

const outputs = existsSync(env.GITHUB_OUTPUT) ? readFileSync(env.GITHUB_OUTPUT, "utf8") : "";
const summary = existsSync(env.GITHUB_STEP_SUMMARY) ? readFileSync(env.GITHUB_STEP_SUMMARY, "utf8") : "";
const reports = ["report.json", "report.xml", "report.md", "report.html"].map((f) =>
  join(workspace, "cap-conformance-reports", f),
);
const report = existsSync(reports[0]) ? JSON.parse(readFileSync(reports[0], "utf8")) : {};
const problems = [
  ...(failed ? ["a step failed"] : []),
  ...(outputs.includes("verdict=conformant")
    ? []
    : [`the action's verdict output is not "conformant": ${outputs.trim()}`]),
  ...(report.mode === "driver" ? [] : ["the report is not a driver report"]),
  ...(summary.includes("# CAP v1 driver conformance") && summary.includes("## Support table")
    ? []
    : ["the job summary has no driver support table"]),
  ...reports.filter((r) => !existsSync(r)).map((r) => `missing report ${r}`),
];
if (problems.length > 0) {
  console.error(`\nprove: the driver-ci example does NOT work:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log(`\nprove: the driver-ci example works against examples/python (workspace ${workspace})`);
