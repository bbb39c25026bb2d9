/**
 * The Python SDK as PyPI would hand it out: the wheel built by pip with no package index
 * (`pip wheel --no-deps --no-build-isolation --no-index ./sdk-py`) and the sdist built by the in-tree
 * backend's own hook (what release.yml uploads), each installed with `pip install --no-index` into a fresh
 * venv outside the workspace, where examples/python-sdk/echo.py is the driver that must answer.
 *
 * Must never: let pip reach a package index or a configuration of this machine (PIP_NO_INDEX, no pip.conf),
 * or run echo.py against the SDK's source tree — the venvs see only what was installed into them.
 */
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../workspace.mjs";
import { cleanEnv } from "./clean-env.mjs";
import { scratchDir } from "./scratch.mjs";
import { service, step } from "./steps.mjs";

// Debian's Python where present (it has venv), as sdk-py's own tests choose.
export const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

const NO_INDEX = { PIP_NO_INDEX: "1", PIP_CONFIG_FILE: "/dev/null", PIP_DISABLE_PIP_VERSION_CHECK: "1" };

/** Builds both distributions into a scratch folder; resolves `{wheel, sdist}` paths. */
export async function buildDists() {
  const out = scratchDir("python-dists");
  const env = cleanEnv({ home: scratchDir("python-home"), set: NO_INDEX });
  await step(
    "build the commonly-cap wheel with pip, no index",
    PYTHON,
    ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--wheel-dir", out, "./sdk-py"],
    { cwd: ROOT, env },
  );
  await step(
    "build the commonly-cap sdist with the in-tree backend",
    PYTHON,
    [
      "-c",
      "import sys; sys.path.insert(0, '_build'); import cap_build; print(cap_build.build_sdist(sys.argv[1]))",
      out,
    ],
    { cwd: join(ROOT, "sdk-py"), env },
  );
  const files = readdirSync(out);
  const wheel = files.find((f) => f.endsWith(".whl"));
  const sdist = files.find((f) => f.endsWith(".tar.gz"));
  if (!wheel || !sdist) throw new Error(`expected a wheel and an sdist in ${out}, found ${files}`);
  return { wheel: join(out, wheel), sdist: join(out, sdist) };
}

/** A fresh venv with `dist` installed from the file alone; resolves `{dir, python, echo}`. */
export async function venvWith(label, dist) {
  const dir = scratchDir(`venv-${label}`);
  const env = cleanEnv({ home: dir, set: NO_INDEX });
  await step(`python3 -m venv (${label})`, PYTHON, ["-m", "venv", join(dir, "v")], { env });
  await step(
    `pip install --no-index ${dist}`,
    join(dir, "v", "bin", "pip"),
    ["install", "--no-index", dist],
    {
      cwd: dir,
      env,
    },
  );
  // The example beside the venv, not in the repository: only the installed cap_sdk can be imported.
  copyFileSync(join(ROOT, "examples", "python-sdk", "echo.py"), join(dir, "echo.py"));
  return { dir, python: join(dir, "v", "bin", "python"), echo: join(dir, "echo.py"), env };
}

/** Starts the venv's echo driver against `url` with an agent token. */
export function startEcho(venv, label, url, token) {
  return service(`${label}: python echo.py`, venv.python, [venv.echo], {
    cwd: venv.dir,
    env: { ...venv.env, CAP_URL: url, CAP_TOKEN: token },
  });
}
