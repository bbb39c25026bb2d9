/**
 * Child processes for end-to-end tests: spawned in their own process group (so a shell script's curl dies
 * with it), output captured for failure messages, stopped with SIGTERM and, after a deadline, SIGKILL;
 * a free port, and waiting until a port accepts connections.
 */
import { type ChildProcess } from "node:child_process";
/** A port nobody listens on now (for a process that must come back on the same port). */
export declare function freePort(): Promise<number>;
/** Resolves once `host:port` accepts a TCP connection; fails at the deadline. */
export declare function waitForPort(port: number, host?: string, timeoutMs?: number): Promise<void>;
export interface Spawned {
    readonly child: ChildProcess;
    /** Everything written to stdout and stderr so far. */
    output(): string;
    /** Resolves with the exit code (null after a signal) once the process has exited. */
    readonly exited: Promise<number | null>;
    /** Resolves with the first match of `pattern` in the output, or rejects at the deadline or on exit. */
    waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
    /** `signal` (SIGTERM) to the group, SIGKILL after `graceMs`; resolves once the process has exited. */
    stop(graceMs?: number, signal?: NodeJS.Signals): Promise<void>;
}
export declare function spawnProcess(command: string, args: string[], options?: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    name?: string;
}): Spawned;
