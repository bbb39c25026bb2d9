/**
 * Test harness around the fake CLIs in fixtures/bin: a private state directory per test, a PATH
 * that finds the fakes first, a SpawnContext builder, and readers for what the fakes recorded.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SpawnContext } from "../../src/adapters/types.js";

export const FIXTURE_BIN = fileURLToPath(new URL("../fixtures/bin", import.meta.url));

export interface FakeCall {
  pid: number;
  cli: string;
  event: string;
  /** Empty for events that are not calls. */
  argv: string[];
  cwd?: string;
  stdin?: string;
  prompt?: string;
  session?: string;
  /** claude: the TRACEPARENT and TRACESTATE of its environment (null when unset). */
  traceparent?: string | null;
  tracestate?: string | null;
  /** `hang-tree`: the pid of the child process the fake started. */
  child?: number;
}

export interface FakeCliHarness {
  stateDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  ctx(overrides?: Partial<SpawnContext>, extraEnv?: Record<string, string>): SpawnContext;
  calls(filter?: { cli?: string; event?: string }): FakeCall[];
  cleanup(): void;
}

export function fakeCli(): FakeCliHarness {
  const stateDir = mkdtempSync(join(tmpdir(), "fake-cli-state-"));
  const cwd = mkdtempSync(join(tmpdir(), "fake-cli-cwd-"));
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: `${FIXTURE_BIN}${delimiter}${process.env.PATH ?? ""}`,
    FAKE_CLI_STATE_DIR: stateDir,
  };
  return {
    stateDir,
    cwd,
    env,
    ctx: (overrides = {}, extraEnv = {}) => ({
      sessionId: null,
      cwd,
      env: { ...env, ...extraEnv },
      memoryLongTerm: "",
      metadata: {},
      timeoutMs: 15_000,
      ...overrides,
    }),
    calls(filter = {}) {
      let text = "";
      try {
        text = readFileSync(join(stateDir, "calls.jsonl"), "utf8");
      } catch {
        return [];
      }
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => ({ argv: [], ...(JSON.parse(l) as Partial<FakeCall>) }) as FakeCall)
        .filter(
          (c) =>
            (filter.cli ? c.cli === filter.cli : true) && (filter.event ? c.event === filter.event : true),
        );
    },
    cleanup() {
      rmSync(stateDir, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** True while a process with this pid runs. A zombie (dead, not yet reaped by init) is not running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; the command name before it may contain spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}
