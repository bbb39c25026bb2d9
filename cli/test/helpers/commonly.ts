/**
 * Running the real `commonly` bin (cli/dist/bin.js) as a child process, the way a user does: a
 * private COMMONLY_HOME, the fake claude/codex/gemini/cursor-agent/echo-bot first on PATH, and
 * their own state directory (FAKE_CLI_STATE_DIR) per test. `start` is for the long-running
 * `agent run`: its output is collected and waited on by pattern, never by time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { eventually, type TestKernel } from "@commonly/cap-kernel/testing";
import { type FakeCall, FIXTURE_BIN } from "./fake-cli.js";

export const COMMONLY_BIN = resolve(import.meta.dirname, "..", "..", "dist", "bin.js");

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class RunningCommonly {
  stdout = "";
  stderr = "";
  readonly exited: Promise<Exited>;
  constructor(readonly child: ChildProcess) {
    child.stdout!.on("data", (c) => {
      this.stdout += c;
    });
    child.stderr!.on("data", (c) => {
      this.stderr += c;
    });
    this.exited = new Promise((r) =>
      child.once("close", (code) => r({ code, stdout: this.stdout, stderr: this.stderr })),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Waits until stdout matches `pattern`; returns the match. */
  waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    return eventually(
      () => {
        const m = pattern.exec(this.stdout);
        if (!m && this.child.exitCode !== null)
          throw new Error(`commonly exited ${this.child.exitCode}: ${this.stdout}\n${this.stderr}`);
        return m;
      },
      `commonly prints ${pattern}\n--- stdout so far:\n${this.stdout}\n--- stderr:\n${this.stderr}`,
      { timeoutMs, everyMs: 20 },
    );
  }

  /** Ctrl+C, then waits for the exit. */
  async stop(signal: NodeJS.Signals = "SIGINT"): Promise<Exited> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

export class Commonly {
  readonly home = mkdtempSync(join(tmpdir(), "commonly-home-"));
  readonly fakeState = mkdtempSync(join(tmpdir(), "commonly-fake-"));
  readonly #running: RunningCommonly[] = [];

  env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      COMMONLY_HOME: this.home,
      PATH: `${FIXTURE_BIN}${delimiter}${process.env.PATH ?? ""}`,
      FAKE_CLI_STATE_DIR: this.fakeState,
      NO_COLOR: "1",
      COMMONLY_AGENT_TOKEN: undefined,
      COMMONLY_API_URL: undefined,
      ...extra,
    };
  }

  start(args: string[], env: Record<string, string | undefined> = {}): RunningCommonly {
    const child = spawn(process.execPath, [COMMONLY_BIN, ...args], {
      env: this.env(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const running = new RunningCommonly(child);
    this.#running.push(running);
    return running;
  }

  /** Runs a command to its end. */
  exec(args: string[], env: Record<string, string | undefined> = {}): Promise<Exited> {
    return this.start(args, env).exited;
  }

  async login(kernel: TestKernel): Promise<void> {
    const r = await this.exec(["login", "--url", kernel.url, "--token", kernel.human.token]);
    if (r.code !== 0) throw new Error(`login failed: ${r.stdout}${r.stderr}`);
  }

  async attach(kernel: TestKernel, cli: string, name: string, extra: string[] = []): Promise<Exited> {
    const r = await this.exec(["agent", "attach", cli, "--pod", kernel.podId, "--name", name, ...extra]);
    if (r.code !== 0) throw new Error(`attach failed (${r.code}): ${r.stdout}${r.stderr}`);
    return r;
  }

  tokenFile(name: string): { runtimeToken: string; tokenId: string; podId: string } {
    return JSON.parse(readFileSync(join(this.home, "tokens", `${name}.json`), "utf8"));
  }

  /** What the fake CLIs recorded. */
  calls(filter: { cli?: string; event?: string } = {}): FakeCall[] {
    let text = "";
    try {
      text = readFileSync(join(this.fakeState, "calls.jsonl"), "utf8");
    } catch {
      return [];
    }
    return text
      .split("\n")
      .filter(Boolean)
      .map((l) => ({ argv: [], ...(JSON.parse(l) as Partial<FakeCall>) }) as FakeCall)
      .filter((c) => (!filter.cli || c.cli === filter.cli) && (!filter.event || c.event === filter.event));
  }

  /** The agent's JSON log lines. */
  log(name: string): Array<Record<string, unknown>> {
    const file = join(this.home, "logs", `${name}-${new Date().toISOString().slice(0, 10)}.log`);
    try {
      return readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    } catch {
      return [];
    }
  }

  async dispose(): Promise<void> {
    await Promise.all(this.#running.map((r) => r.stop("SIGKILL")));
    rmSync(this.home, { recursive: true, force: true });
    rmSync(this.fakeState, { recursive: true, force: true });
  }
}
