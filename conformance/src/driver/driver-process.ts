/**
 * The driver under test as a child process (`--command`): started with `sh -c` in its own process group,
 * with `CAP_URL`, `CAP_TOKEN`, `CAP_POD_ID` (and the CLI's `COMMONLY_API_URL` + `COMMONLY_AGENT_TOKEN`) in
 * its environment, its stdout and stderr kept (the tail) for the report. stop() ends the whole group it
 * started — SIGTERM, then SIGKILL after a grace period — and nothing else.
 */
import { type ChildProcess, spawn } from "node:child_process";

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

  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.kill("SIGTERM");
    const timer = setTimeout(() => this.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
    // A driver that left children behind in its group: end them too.
    const pid = this.child.pid;
    if (pid !== undefined)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // the group is empty
      }
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
