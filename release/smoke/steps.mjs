/**
 * How the smoke runs things: `step` runs one command to completion, prints what it runs and how long it
 * took, and on failure throws an error naming the step with the command's exit and its output; `service`
 * starts a long-running process (a kernel, a driver) in its own process group so that stopping it stops
 * everything it started; `waitFor` polls until a condition holds or its deadline passes.
 *
 * Must never: leave a process running after `stopAll`, or report a failed command without its output.
 */
import { spawn } from "node:child_process";

const TAIL = 6000;
const tail = (text) => (text.length > TAIL ? `…${text.slice(-TAIL)}` : text);
const quote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
export const commandLine = (cmd, args) => [cmd, ...args].map(quote).join(" ");

/** Thrown when a step fails: its message names the step and carries the command's output. */
export class StepError extends Error {}

/**
 * Runs `cmd args` to completion in `cwd` with `env`; resolves `{stdout, stderr, output, code}`.
 * `expect` is the exit code that counts as success (0 unless said; `null` takes any).
 */
export async function step(name, cmd, args, { cwd, env, input, timeoutMs = 600_000, expect = 0 } = {}) {
  const line = commandLine(cmd, args);
  console.log(`▶ ${name}\n  $ ${line}${cwd ? `\n  (in ${cwd})` : ""}`);
  const started = Date.now();
  const child = spawn(cmd, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  // A command that exits without reading its input closes the pipe first: that is not a failure.
  child.stdin.on("error", () => {});
  let stdout = "";
  let stderr = "";
  let output = "";
  child.stdout.on("data", (d) => {
    stdout += d;
    output += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
    output += d;
  });
  child.stdin.end(input ?? "");
  groups.add(child.pid);
  const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), timeoutMs);
  const { code, error } = await new Promise((resolve) => {
    child.once("error", (error) => resolve({ code: null, error }));
    child.once("close", (code, signal) => resolve({ code: code ?? signal }));
  });
  clearTimeout(timer);
  groups.delete(child.pid);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (error || (expect !== null && code !== expect)) {
    const why = error ? error.message : `exited ${code} (expected ${expect})`;
    console.log(`✗ ${name}: ${why} after ${seconds} s\n${tail(output)}`);
    throw new StepError(`${name}: \`${line}\` ${why} after ${seconds} s\n--- output ---\n${tail(output)}`);
  }
  console.log(`${code === 0 ? "✓" : "•"} ${name} (${code === 0 ? "" : `exit ${code}, `}${seconds} s)`);
  return { stdout, stderr, output, code, seconds: Number(seconds) };
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

const running = new Set();
/**
 * Every process group started here and not yet finished. Each runs detached (so that a timeout or a stop
 * reaches all it started), which also means it would outlive this process: on the way out — a normal exit,
 * or Ctrl-C, a SIGTERM from the test runner, a closed terminal — it goes. (A SIGKILL of this process
 * cannot be caught; the leftover checks would then name what survived on the next run's machine.)
 */
const groups = new Set();
const killGroups = () => {
  for (const pid of groups) killGroup(pid, "SIGKILL");
  groups.clear();
};
process.once("exit", killGroups);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.once(signal, () => {
    killGroups();
    // Then the signal's own effect: with this listener gone, the default action (or the runner's own).
    process.kill(process.pid, signal);
  });

/**
 * Starts a long-running command in a process group of its own. The handle's `output()` is everything it
 * printed so far; `waitForOutput(re)` waits until it prints a match; `stop()` sends SIGTERM to the group,
 * SIGKILL after 5 s, and resolves once the process has exited.
 */
export function service(name, cmd, args, { cwd, env } = {}) {
  console.log(`▶ ${name} (in the background)\n  $ ${commandLine(cmd, args)}${cwd ? `\n  (in ${cwd})` : ""}`);
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  groups.add(child.pid);
  let output = "";
  child.stdout.on("data", (d) => {
    output += d;
  });
  child.stderr.on("data", (d) => {
    output += d;
  });
  const exited = new Promise((resolve) => child.once("close", (code, signal) => resolve(code ?? signal)));
  const handle = {
    name,
    pid: child.pid,
    exited,
    exitCode: () => child.exitCode ?? child.signalCode,
    output: () => output,
    async waitForOutput(re, timeoutMs = 60_000) {
      await waitFor(`${name} to print ${re}`, () => re.test(output) || handle.exitCode() !== null, timeoutMs);
      if (!re.test(output))
        throw new StepError(`${name} exited ${handle.exitCode()} before printing ${re}\n${tail(output)}`);
      return output.match(re);
    },
    async stop() {
      running.delete(handle);
      if (handle.exitCode() === null) {
        killGroup(child.pid, "SIGTERM");
        const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      // Whatever the group started and left behind goes too.
      killGroup(child.pid, "SIGKILL");
      groups.delete(child.pid);
      return handle.exitCode();
    },
  };
  running.add(handle);
  return handle;
}

/** Stops every service still running (afterAll, and on the way out of a failed run). */
export async function stopAll() {
  await Promise.all([...running].map((s) => s.stop()));
}

/** Polls `check` (sync or async) every 100 ms until it returns a truthy value; throws after `timeoutMs`. */
export async function waitFor(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new StepError(
        `timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${last.message}` : ""}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
