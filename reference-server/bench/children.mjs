/**
 * Child processes of the bench (baseline server, kernel replicas, a throwaway PostgreSQL cluster) and their
 * cleanup. Every child is registered here and stopped on normal exit, on an error and on SIGINT/SIGTERM,
 * so a failed run leaves nothing behind. Must never signal a process it did not start.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";

const live = new Set();
const cleanups = [];
let exiting = false;

/** Starts `command args` and tracks it; stdout/stderr are kept (last 64 KiB) for error reports. */
export function startChild(name, command, args, { env, cwd } = {}) {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk.toString("utf8")).slice(-65536);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const handle = {
    name,
    pid: child.pid,
    child,
    exited,
    output: () => output,
    /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
    async stop(graceMs = 3000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  live.add(handle);
  exited.then(() => live.delete(handle));
  return handle;
}

/** True once a signal or fatal error started the cleanup (scenario errors after that are expected). */
export const isExiting = () => exiting;

/** Registers an async cleanup (drop a database, remove a temp dir) run at exit, last registered first. */
export function onCleanup(fn) {
  cleanups.push(fn);
}

/** Stops every live child and runs every cleanup once. */
export async function cleanupAll() {
  for (const h of [...live]) await h.stop().catch(() => undefined);
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (err) {
      process.stderr.write(`bench cleanup: ${err.message}\n`);
    }
  }
}

/** Installs signal and error handlers that clean up before the process ends. */
export function installExitHandlers() {
  const bail = (code) => {
    if (exiting) return;
    exiting = true;
    cleanupAll().finally(() => process.exit(code));
  };
  process.on("SIGINT", () => bail(130));
  process.on("SIGTERM", () => bail(143));
  process.on("uncaughtException", (err) => {
    process.stderr.write(`bench: ${err.stack ?? err}\n`);
    bail(1);
  });
  process.on("unhandledRejection", (err) => {
    process.stderr.write(`bench: ${err?.stack ?? err}\n`);
    bail(1);
  });
  // Last resort on a synchronous exit: SIGKILL whatever is still running.
  process.on("exit", () => {
    for (const h of live) h.child.kill("SIGKILL");
  });
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resident set size of a live process in MiB, from /proc (Linux). */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** Resolves once `check()` resolves truthy; polls every 50 ms, fails after `timeoutMs` or if `handle` exits. */
export async function waitUntil(what, check, { timeoutMs = 20_000, handle } = {}) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (handle && (handle.child.exitCode !== null || handle.child.signalCode !== null)) {
      throw new Error(`${handle.name} exited while waiting for ${what}:\n${handle.output()}`);
    }
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${handle ? `:\n${handle.output()}` : ""}`,
  );
}

/** CPU seconds (user + system) a live process has used so far, from /proc (Linux, 100 ticks/s). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds the whole machine has spent busy (all cores, everything but idle and iowait), from /proc/stat. */
export function machineBusySeconds() {
  const [, ...f] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = f.map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
}

/**
 * Measures how much CPU processes other than `ours` (pids) and this one used while `fn` ran, in cores:
 * other work on a shared machine is what makes a figure noisy, so the bench reports it beside each figure.
 */
export async function withOthersCpu(pids, fn) {
  const ours = () => pids.reduce((n, pid) => n + cpuSeconds(pid), 0);
  const self = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const t0 = performance.now();
  const busy0 = machineBusySeconds();
  const ours0 = ours() + self();
  const result = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const others = Math.max(0, machineBusySeconds() - busy0 - (ours() + self() - ours0)) / seconds;
  return { result, others };
}
