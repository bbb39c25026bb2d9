/**
 * Finding a CLI the way a shell would (PATH, executable bit) and asking it for its version.
 * Used by every adapter's detect(); it never installs anything (ADR-005 invariant 8).
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { runProcess } from "./run-process.js";
import type { DetectOptions, DetectResult } from "./types.js";

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    if (!s.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path `command` resolves to, or null. A command with a slash is taken as a path. */
export async function findExecutable(
  command: string,
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): Promise<string | null> {
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return (await isExecutableFile(path)) ? path : null;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Finds `command` and runs `<path> --version`; a CLI that cannot say its version is still found. */
export async function detectCommand(command: string, opts: DetectOptions = {}): Promise<DetectResult | null> {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const path = await findExecutable(command, env, cwd);
  if (path === null) return null;
  try {
    const { stdout } = await runProcess({
      command: path,
      args: ["--version"],
      cwd,
      env,
      timeoutMs: opts.timeoutMs ?? 10_000,
      killGraceMs: 500,
      maxStdoutBytes: 4096,
      spawnImpl: opts._spawnImpl,
    });
    return { path, version: stdout.trim().split("\n")[0]?.trim() || "unknown" };
  } catch {
    return { path, version: "unknown" };
  }
}
