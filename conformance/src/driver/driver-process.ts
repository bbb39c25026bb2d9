/**
 * The driver under test as a child process (`--command`): started with `sh -c` in its own process group,
 * with `CAP_URL`, `CAP_TOKEN`, `CAP_POD_ID` (and the CLI's `COMMONLY_API_URL` + `COMMONLY_AGENT_TOKEN`) in
 * its environment, its stdout and stderr kept (the tail) for the report. stop() ends the whole group it
 * started — SIGTERM, then SIGKILL after a grace period — and crash() kills it at once (SIGKILL, no chance
 * to clean up); both end that group and nothing else.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const KEEP = 64 * 1024;

export interface DriverEnv {
  url: string;
  token: string;
  podId: string;
  agentName: string;
}

export function driverEnvironment(e: DriverEnv): Record<string, string> {
  return {
    CAP_URL: e.url,
    CAP_TOKEN: e.token,
    CAP_POD_ID: e.podId,
    CAP_AGENT_NAME: e.agentName,
    // `commonly agent run` reads these (ADR-005's container start), so the CLI needs no wrapper.
    COMMONLY_API_URL: e.url,
    COMMONLY_AGENT_TOKEN: e.token,
  };
}

export class DriverProcess {
  stdout = "";
  stderr = "";
  exitCode: number | null = null;
  signal: NodeJS.Signals | null = null;
  exitedAt: number | null = null;
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(command: string, env: DriverEnv, secrets: ReadonlyMap<string, string>) {
    this.child = spawn("sh", ["-c", command], {
      env: { ...process.env, ...driverEnvironment(env) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const redact = (s: string) => {
      let out = s;
      for (const [secret, label] of secrets) if (secret) out = out.split(secret).join(`<redacted:${label}>`);
      return out;
    };
    this.child.stdout?.on("data", (d: Buffer) => {
      this.stdout = redact((this.stdout + d.toString()).slice(-KEEP));
    });
    this.child.stderr?.on("data", (d: Buffer) => {
      this.stderr = redact((this.stderr + d.toString()).slice(-KEEP));
    });
    this.exited = new Promise((ok) => {
      this.child.once("exit", (code, signal) => {
        this.exitCode = code;
        this.signal = signal;
        this.exitedAt = Date.now();
        ok();
      });
      this.child.once("error", (e) => {
        this.stderr += `\n(cap-conformance: could not start the driver: ${e.message})`;
        this.exitCode = 127;
        this.exitedAt = Date.now();
        ok();
      });
    });
  }

  get running(): boolean {
    return this.exitedAt === null;
  }

  private kill(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined || !this.running) return;
    try {
      process.kill(-pid, signal); // the group this process leads: the shell and what it started
    } catch {
      try {
        this.child.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  /**
   * Whether any process of the group it leads is still running (the shell may be gone, its driver not).
   * On Linux a zombie does not count: an orphan's zombie waits for PID 1 to reap it, which in a container
   * can take a second, and it runs nothing.
   */
  private groupAlive(): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, 0);
    } catch {
      return false;
    }
    if (process.platform !== "linux") return true;
    try {
      for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        let stat: string;
        try {
          stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        } catch {
          continue; // gone since the listing
        }
        // Fields after "(comm)": state, ppid, pgrp, …
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(pgrp) === pid && state !== "Z") return true;
      }
      return false;
    } catch {
      return true;
    }
  }

  /** SIGTERM to the group; SIGKILL to whatever of it is still alive after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (!this.running && !this.groupAlive()) return;
    const pid = this.child.pid;
    if (pid !== undefined)
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        this.kill("SIGTERM");
      }
    const deadline = Date.now() + graceMs;
    while ((this.running || this.groupAlive()) && Date.now() < deadline)
      await new Promise((ok) => setTimeout(ok, 20));
    if (pid !== undefined && this.groupAlive())
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone in between
      }
    await this.exited;
  }

  /** A crash: SIGKILL to the whole group, nothing to catch; resolves once no process of it runs. */
  async crash(): Promise<void> {
    const pid = this.child.pid;
    if (pid !== undefined)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        this.kill("SIGKILL");
      }
    await this.exited;
    // SIGKILL cannot be caught, so the group is gone as soon as the kernel has delivered it.
    for (let i = 0; i < 250 && this.groupAlive(); i++) await new Promise((ok) => setTimeout(ok, 20));
  }

  /** How the process ended, for notes: "exit 1", "signal SIGKILL", or "running". */
  describeExit(): string {
    if (this.running) return "running";
    return this.signal ? `signal ${this.signal}` : `exit ${this.exitCode}`;
  }

  tail(stream: "stdout" | "stderr", chars = 1500): string {
    const s = this[stream];
    return s.length > chars ? `…${s.slice(-chars)}` : s;
  }
}
