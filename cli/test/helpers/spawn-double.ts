/**
 * A stand-in for child_process.spawn (the ADR-005 `_spawnImpl` seam): records each call and
 * answers with a scripted stdout, stderr and exit status, without starting any process.
 */
import type { spawn } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { PassThrough } from "node:stream";

export interface SpawnCall {
  command: string;
  args: string[];
  options: Record<string, unknown>;
  stdin: string;
}

export interface Scripted {
  stdout?: string;
  stderr?: string;
  code?: number;
  /** Called with the args before answering, e.g. to write the file codex's -o names. */
  before?: (args: string[]) => void;
}

export function spawnDouble(...script: Scripted[]): { impl: typeof spawn; calls: SpawnCall[] } {
  const calls: SpawnCall[] = [];
  const impl = ((command: string, args: string[], options: Record<string, unknown>) => {
    const step = script[Math.min(calls.length, script.length - 1)] ?? {};
    const call: SpawnCall = { command, args, options, stdin: "" };
    calls.push(call);
    const child = new EventEmitter() as EventEmitter & Record<string, unknown>;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = new PassThrough();
    stdin.on("data", (c: Buffer) => {
      call.stdin += c.toString("utf8");
    });
    const stdio = options.stdio as string[];
    Object.assign(child, {
      pid: undefined,
      stdout,
      stderr,
      stdin: stdio[0] === "pipe" ? stdin : null,
      exitCode: null,
      signalCode: null,
      kill: () => true,
    });
    setImmediate(() => {
      step.before?.(args);
      stdout.end(step.stdout ?? "");
      stderr.end(step.stderr ?? "");
      const code = step.code ?? 0;
      child.exitCode = code;
      child.emit("exit", code, null);
      // Like a real ChildProcess: "close" only after both pipes have ended.
      void Promise.all([once(stdout, "end"), once(stderr, "end")]).then(() =>
        child.emit("close", code, null),
      );
    });
    return child;
  }) as unknown as typeof spawn;
  return { impl, calls };
}
