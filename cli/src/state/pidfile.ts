/**
 * `run/<name>.pid`: one `agent run` per agent. Two loops for the same agent would spawn twice and
 * post twice (ADR-005 §Spawning semantics called a pidfile "a candidate post-v1"; it is v1 here).
 *
 * The file is created with O_EXCL, so of two simultaneous starts exactly one wins. A pidfile whose
 * process is gone (crash, kill -9, reboot) is taken over: it is renamed away first — only one
 * contender can rename it — and put back if what was renamed turns out not to be the stale file.
 * A recycled pid that now belongs to an unrelated process reads as "running"; the error says which
 * file to delete in that case.
 */

import { readFileSync, rmSync } from "node:fs";
import { link, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

export class PidfileBusyError extends Error {
  readonly pid: number;
  readonly path: string;
  constructor(pid: number, path: string) {
    super(
      `already running as pid ${pid} (pidfile ${path}); stop it first, or delete the file if that pid is not this agent`,
    );
    this.name = "PidfileBusyError";
    this.pid = pid;
    this.path = path;
  }
}

/**
 * True when a process with this pid runs (EPERM: it runs but belongs to someone else). On Linux a
 * zombie — dead, waiting to be reaped — counts as gone: it will never release the pidfile.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch {
    return false;
  }
}

export interface PidfileLock {
  readonly path: string;
  readonly pid: number;
  /** Removes the file if it is still ours. */
  release(): Promise<void>;
  /** The same, for process "exit" handlers, which cannot await. */
  releaseSync(): void;
}

export interface AcquireOptions {
  pid?: number;
  isAlive?: (pid: number) => boolean;
}

function parsePid(text: string | null): number | null {
  const n = Number.parseInt(text?.trim() ?? "", 10);
  return Number.isInteger(n) && n > 0 ? n : null;
}

export async function acquirePidfile(path: string, opts: AcquireOptions = {}): Promise<PidfileLock> {
  const pid = opts.pid ?? process.pid;
  const isAlive = opts.isAlive ?? isProcessAlive;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const fh = await open(path, "wx", 0o600);
      try {
        await fh.writeFile(`${pid}\n`);
      } finally {
        await fh.close();
      }
      return lock(path, pid);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const seen = await readFile(path, "utf8").catch(() => null);
    if (seen === null) continue; // removed between our open and our read: try again
    const holder = parsePid(seen);
    if (holder !== null && holder !== pid && isAlive(holder)) throw new PidfileBusyError(holder, path);
    // Stale (dead pid, garbage, or our own pid from a previous life): take it over.
    const moved = `${path}.${pid}.stale`;
    try {
      await rename(path, moved);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue; // someone else took it over
      throw err;
    }
    const movedText = await readFile(moved, "utf8").catch(() => null);
    if (movedText !== seen) {
      // We moved a fresh pidfile another contender had just written: give it back.
      await link(moved, path).catch(() => {});
    }
    await rm(moved, { force: true });
  }
  throw new Error(`could not take over pidfile ${path}: it keeps changing`);
}

function lock(path: string, pid: number): PidfileLock {
  const ours = (text: string | null): boolean => parsePid(text) === pid;
  return {
    path,
    pid,
    async release() {
      if (ours(await readFile(path, "utf8").catch(() => null))) await rm(path, { force: true });
    },
    releaseSync() {
      let text: string | null = null;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        return;
      }
      if (ours(text)) rmSync(path, { force: true });
    },
  };
}
