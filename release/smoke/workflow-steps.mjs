/**
 * Runs a copy-paste GitHub workflow's one job on this machine, step by step, as a runner would: each `run:`
 * step is written to a file and run with `bash --noprofile --norc -eo pipefail` (what `shell: bash` runs)
 * in the job's workspace with the job's `env:`; the cap-conformance composite action runs its own steps
 * from .github/actions/cap-conformance, with `${{ inputs.* }}` filled from the step's `with:` and the
 * action's defaults; `actions/*` steps (checkout, setup-node, upload-artifact) have nothing to do here and
 * are logged as skipped. Steps after a failure run only under `if: always()`, as on GitHub.
 *
 * Must never: change a step's script — the workflow must work as written — or accept an `if:`, a `uses:`
 * or an expression it cannot run faithfully (it throws instead).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../workspace.mjs";
import { step } from "./steps.mjs";

export const ACTION_DIR = join(ROOT, ".github", "actions", "cap-conformance");
const ACTION = /^[\w-]+\/[\w.-]+\/\.github\/actions\/cap-conformance@[\w.-]+$/;

/** The one job of a workflow file: `{name, job}`. */
export function workflowJob(file) {
  const jobs = Object.entries(parse(readFileSync(file, "utf8")).jobs);
  if (jobs.length !== 1) throw new Error(`${file}: expected one job, found ${jobs.length}`);
  return { name: jobs[0][0], job: jobs[0][1] };
}

/** `${{ inputs.name }}` → the input's value; any other expression is refused. */
function expand(text, inputs) {
  return String(text).replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr) => {
    const m = /^inputs\.([\w-]+)$/.exec(expr);
    if (!m) throw new Error(`cannot evaluate \${{ ${expr} }} here`);
    return inputs[m[1]] ?? "";
  });
}

async function bash(label, script, { cwd, env, runnerTemp }) {
  const file = join(runnerTemp, `step-${Date.now()}-${Math.random().toString(16).slice(2)}.sh`);
  writeFileSync(file, script);
  return step(label, "bash", ["--noprofile", "--norc", "-eo", "pipefail", file], { cwd, env, expect: null });
}

/** The composite action with `with`: its steps, then its outputs as GitHub computes them. */
async function runAction(uses, withInputs, ctx) {
  const action = parse(readFileSync(join(ACTION_DIR, "action.yml"), "utf8"));
  const inputs = {};
  for (const name of Object.keys(withInputs ?? {}))
    if (!(name in action.inputs)) throw new Error(`${uses} has no input "${name}"`);
  for (const [name, spec] of Object.entries(action.inputs)) {
    inputs[name] = String(withInputs?.[name] ?? spec.default ?? "");
    if (spec.required && inputs[name] === "")
      throw new Error(`${uses}: the required input "${name}" is missing`);
  }
  const outputsFile = join(ctx.runnerTemp, `action-outputs-${Date.now()}`);
  writeFileSync(outputsFile, "");
  let last = { code: 0, output: "" };
  for (const s of action.runs.steps) {
    if (s.shell !== "bash" || !s.run) throw new Error(`${uses}: only bash run steps are supported`);
    const env = { ...ctx.env, GITHUB_ACTION_PATH: ACTION_DIR, GITHUB_OUTPUT: outputsFile };
    for (const [k, v] of Object.entries(s.env ?? {})) env[k] = expand(v, inputs);
    last = await bash(`${ctx.label}: ${uses} › ${s.id ?? "step"}`, expand(s.run, inputs), { ...ctx, env });
    if (last.code !== 0) break;
  }
  const outputs = Object.fromEntries(
    readFileSync(outputsFile, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  return { ...last, outputs };
}

/**
 * Runs the job of `file` in `workspace` with `env` (the runner's environment: PATH, HOME, npm config).
 * `jobEnv` replaces values of the job's own `env:` (as a fork would edit them: a free port on a busy
 * machine), and is printed. `afterStep(name, result)` is called after each step that ran. Resolves `[{name, status, code, outputs}]`,
 * status one of passed, failed, skipped (an `actions/*` step or a step after a failure).
 */
export async function runWorkflow(file, { workspace, env, label, jobEnv: edits = {}, afterStep = () => {} }) {
  const { job } = workflowJob(file);
  for (const [k, v] of Object.entries(edits)) {
    if (!(k in (job.env ?? {}))) throw new Error(`${file}: the job has no env ${k} to replace`);
    console.log(`- ${label}: job env ${k}=${v} (the workflow says ${job.env[k]})`);
  }
  const runnerTemp = join(workspace, ".runner-temp");
  mkdirSync(runnerTemp, { recursive: true });
  const jobEnv = {
    ...env,
    ...Object.fromEntries(Object.entries({ ...job.env, ...edits }).map(([k, v]) => [k, String(v)])),
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runnerTemp,
    GITHUB_STEP_SUMMARY: join(workspace, ".step-summary.md"),
  };
  const ctx = { cwd: workspace, env: jobEnv, runnerTemp, label };
  const results = [];
  let failed = false;
  for (const s of job.steps) {
    const name = s.name ?? s.uses ?? "(unnamed)";
    const always = s.if !== undefined && /^\s*always\(\)\s*$/.test(String(s.if));
    if (s.if !== undefined && !always)
      throw new Error(`${file}: step "${name}" has an if: this runner cannot evaluate`);
    if (failed && !always) {
      results.push({ name, status: "skipped" });
      continue;
    }
    let result;
    if (s.run) {
      result = await bash(`${label}: ${name}`, s.run, {
        ...ctx,
        env: { ...jobEnv, GITHUB_OUTPUT: join(runnerTemp, "outputs") },
      });
    } else if (ACTION.test(s.uses ?? "")) {
      result = await runAction(s.uses, s.with, ctx);
    } else if (/^actions\/[\w-]+@/.test(s.uses ?? "")) {
      console.log(`- ${label}: ${s.uses} skipped (nothing to do outside GitHub)`);
      results.push({ name, status: "skipped" });
      continue;
    } else {
      throw new Error(`${file}: no local equivalent for step "${name}" (${s.uses})`);
    }
    const status = result.code === 0 ? "passed" : "failed";
    if (status === "failed") failed = true;
    results.push({ name, status, code: result.code, outputs: result.outputs ?? {}, output: result.output });
    await afterStep(name, result);
  }
  return results;
}
