/**
 * The one way adapters start a process: no shell, bounded output, a deadline, and a kill that
 * escalates from SIGTERM to SIGKILL. Every adapter goes through here so timeout and abort behave
 * identically across CLIs (ADR-005 §Spawning semantics: 5 minutes, then killed, event not acked).
 *
 * The child gets its own process group so the kill also reaches whatever it started (tool
 * subprocesses, MCP servers); otherwise a grandchild holding our pipes would keep a "killed" turn
 * alive. The flip side: a terminal's Ctrl+C no longer reaches the child, so the run loop must turn
 * SIGINT into an abort of `signal`. This module never interprets output beyond classifying a
 * failure.
 */
import { spawn as nodeSpawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { AdapterError, classifyFailure } from "./adapter-error.js";
import { DEFAULT_TIMEOUT_MS, type SpawnContext } from "./types.js";

export const DEFAULT_KILL_GRACE_MS = 2000;
export const DEFAULT_MAX_STDOUT_BYTES = 8 * 1024 * 1024;
const STDERR_TAIL_BYTES = 64 * 1024;

export interface RunProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Text written to the child's stdin, then closed. Absent: stdin is /dev/null ("ignore"). */
  input?: string;
  timeoutMs?: number;
  killGraceMs?: number;
  /** The grace after `signal` aborted with this reason; undefined keeps `killGraceMs`. */
  abortGraceMs?(reason: unknown): number | undefined;
  signal?: AbortSignal;
  maxStdoutBytes?: number;
  /** When false, a non-zero exit resolves instead of rejecting (timeouts and aborts still reject). */
  check?: boolean;
  spawnImpl?: typeof nodeSpawn;
}

export interface RunProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when stdout went past maxStdoutBytes and the rest was dropped. */
  truncated: boolean;
}

/** Keeps the last `limit` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
    }
  }
  toString(): string {
    const all = Buffer.concat(this.chunks);
    // A cut in the middle of a UTF-8 sequence decodes to U+FFFD; drop those leading halves.
    return all
      .subarray(Math.max(0, all.length - this.limit))
      .toString("utf8")
      .replace(/^\uFFFD+/, "");
  }
}

/** A classified AdapterError for a process that exited unsuccessfully. */
export function exitFailure(
  label: string,
  out: { exitCode: number | null; signal: string | null; stderr: string; stdout: string },
): AdapterError {
  const tail = out.stderr.slice(-4096);
  const lastLine = tail.trim().split("\n").at(-1) ?? "";
  const status = out.exitCode === null ? `was killed by ${out.signal}` : `exited with code ${out.exitCode}`;
  return new AdapterError(`${label} ${status}${lastLine ? `: ${lastLine}` : ""}`, {
    kind: classifyFailure(out),
    exitCode: out.exitCode,
    signal: out.signal,
    stderrTail: tail,
  });
}

/** Runs a command to completion; resolves on exit 0, rejects with a classified AdapterError otherwise. */
export function runProcess(opts: RunProcessOptions): Promise<RunProcessResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const graceMs = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const maxStdout = opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES;
  const spawnImpl = opts.spawnImpl ?? nodeSpawn;
  const label = opts.command;

  if (opts.signal?.aborted) {
    return Promise.reject(
      new AdapterError(`${label} not started: aborted`, {
        kind: "runtime",
        aborted: true,
        cause: opts.signal.reason,
      }),
    );
  }

  return new Promise<RunProcessResult>((resolve, reject) => {
    let child: ReturnType<typeof nodeSpawn>;
    try {
      child = spawnImpl(opts.command, [...opts.args], {
        cwd: opts.cwd,
        env: opts.env,
        stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        shell: false,
        detached: process.platform !== "win32",
        windowsHide: true,
      });
    } catch (err) {
      // Invalid arguments (e.g. NUL in argv or env) throw synchronously instead of emitting "error".
      reject(
        new AdapterError(`${label} could not be started: ${(err as Error).message}`, {
          kind: "runtime",
          cause: err,
        }),
      );
      return;
    }

    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let truncated = false;
    const stderrTail = new TailBuffer(STDERR_TAIL_BYTES);
    let stopReason: "timeout" | "aborted" | null = null;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const sendSignal = (sig: NodeJS.Signals): void => {
      const pid = child.pid;
      // Only a real, positive pid may be negated: process.kill(-0) would signal our own group.
      if (typeof pid === "number" && pid > 0 && process.platform !== "win32") {
        try {
          process.kill(-pid, sig);
          return;
        } catch {
          // No such group (already gone, or a test double): fall back to the child itself.
        }
      }
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    };

    let exited = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    const stop = (reason: "timeout" | "aborted"): void => {
      // A child that already exited (its pipes still draining) finished on its own: no kill.
      if (stopReason !== null || settled || exited) return;
      stopReason = reason;
      sendSignal("SIGTERM");
      const grace = reason === "aborted" ? (opts.abortGraceMs?.(opts.signal?.reason) ?? graceMs) : graceMs;
      killTimer = setTimeout(() => sendSignal("SIGKILL"), grace);
    };

    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const onAbort = (): void => stop("aborted");
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // After a stop, the SIGKILL still goes to the group when its time comes: the child may
      // have exited on SIGTERM while a grandchild that ignores it lives on.
      killTimer?.unref();
      opts.signal?.removeEventListener("abort", onAbort);
      fn();
    };

    child.stdout?.on("data", (chunk: Buffer) => {
      if (stdoutBytes >= maxStdout) {
        truncated = true;
        return;
      }
      const room = maxStdout - stdoutBytes;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (kept.length < chunk.length) truncated = true;
      stdoutChunks.push(kept);
      stdoutBytes += kept.length;
    });
    child.stderr?.on("data", (chunk: Buffer) => stderrTail.push(chunk));

    if (opts.input !== undefined && child.stdin) {
      // A child that exits without reading its stdin makes the write fail with EPIPE; that is
      // its choice, not our failure, so the error is swallowed and the exit status decides.
      child.stdin.on("error", () => {});
      child.stdin.end(opts.input);
    }

    child.on("error", (err: NodeJS.ErrnoException) => {
      finish(() => {
        void spawnFailure(err, opts).then(reject);
      });
    });

    const settle = (): void =>
      finish(() => {
        const stdout = Buffer.concat(stdoutChunks).toString("utf8");
        const stderr = stderrTail.toString();
        const tail = stderr.slice(-4096);
        const how = exitSignal ?? `exit ${exitCode}`;
        if (stopReason === "timeout") {
          reject(
            new AdapterError(`${label} timed out after ${timeoutMs} ms and was killed (${how})`, {
              kind: "timeout",
              exitCode,
              signal: exitSignal,
              stderrTail: tail,
            }),
          );
        } else if (stopReason === "aborted") {
          reject(
            new AdapterError(`${label} aborted and killed (${how})`, {
              kind: "runtime",
              exitCode,
              signal: exitSignal,
              stderrTail: tail,
              aborted: true,
              cause: opts.signal?.reason,
            }),
          );
        } else if (exitCode === 0 || opts.check === false) {
          resolve({ exitCode, signal: exitSignal, stdout, stderr, truncated });
        } else {
          reject(exitFailure(label, { exitCode, signal: exitSignal, stderr, stdout }));
        }
        child.stdout?.destroy();
        child.stderr?.destroy();
      });

    // "close" comes after the pipes drained, so no output is lost on a normal exit.
    child.on("close", (code, sig) => {
      exitCode ??= code;
      exitSignal ??= sig;
      settle();
    });
    // After a kill, do not wait for pipes a grandchild may still hold; after a normal exit, give
    // the pipes a bounded moment to drain, so a daemonized grandchild cannot pin the turn forever.
    child.on("exit", (code, sig) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      if (stopReason !== null) settle();
      else setTimeout(settle, 1000).unref();
    });
  });
}

async function spawnFailure(err: NodeJS.ErrnoException, opts: RunProcessOptions): Promise<AdapterError> {
  if (err.code === "ENOENT") {
    const cwdExists = await stat(opts.cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!cwdExists) {
      return new AdapterError(`working directory ${opts.cwd} does not exist`, {
        kind: "configuration",
        cause: err,
      });
    }
    return new AdapterError(`${opts.command} not found on PATH`, { kind: "not_found", cause: err });
  }
  if (err.code === "EACCES") {
    return new AdapterError(`${opts.command} is not executable`, { kind: "configuration", cause: err });
  }
  return new AdapterError(`${opts.command} could not be started: ${err.message}`, {
    kind: "runtime",
    cause: err,
  });
}

/** The runProcess options every adapter takes from its SpawnContext. */
export function contextOptions(
  ctx: SpawnContext,
): Pick<
  RunProcessOptions,
  "cwd" | "env" | "timeoutMs" | "killGraceMs" | "abortGraceMs" | "signal" | "spawnImpl"
> {
  return {
    cwd: ctx.cwd,
    env: ctx.env,
    timeoutMs: ctx.timeoutMs,
    killGraceMs: ctx.killGraceMs,
    abortGraceMs: ctx.abortGraceMs,
    signal: ctx.signal,
    spawnImpl: ctx._spawnImpl,
  };
}
