/**
 * Child processes for end-to-end tests: spawned in their own process group (so a shell script's curl dies
 * with it), output captured for failure messages, stopped with SIGTERM and, after a deadline, SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface Spawned {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects at the deadline or on exit. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; name?: string } = {},
): Spawned {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString("utf8");
    for (const l of listeners) l();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const label = options.name ?? command;

  return {
    child,
    output: () => out,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            done();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(`${label}: no output matching ${pattern} within ${timeoutMs} ms. Output:\n${out}`),
          );
        }, timeoutMs);
        const onExit = () => {
          done();
          reject(
            new Error(
              `${label} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}. Output:\n${out}`,
            ),
          );
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off("exit", onExit);
        };
        listeners.add(check);
        child.once("exit", onExit);
        check();
      });
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      const group = -child.pid;
      try {
        process.kill(group, "SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(group, "SIGKILL");
        } catch {
          // already gone
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls `probe` until it returns a value other than `undefined`/`false`, or fails at the deadline with
 * `what` and the last error. Deadlines, not sleeps: a fast machine finishes as soon as the state is there.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 15_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message})` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
