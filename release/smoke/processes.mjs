/**
 * Which processes are still running with a given text in their command line or working directory — how the
 * smoke proves that "stop the kernel" stopped the kernel, and that it leaves nothing behind itself. Reads
 * /proc (Linux, like the CI machine and GitHub's ubuntu runners).
 *
 * Must never: signal anything; it only looks.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** `[{pid, cmdline, cwd}]` of live processes whose command line or working directory contains `text`. */
export function processesMatching(text) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline;
    let cwd = "";
    let state = "";
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? "";
      cwd = readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      // gone meanwhile, or not ours to read
    }
    // A zombie has exited; its parent has not reaped it yet.
    if (!cmdline || state === "Z") continue;
    if (cmdline.includes(text) || cwd.includes(text)) found.push({ pid: Number(entry), cmdline, cwd });
  }
  return found;
}
