/**
 * Runs the built `cap-kernel` (dist/bin.js) as a real process on a real socket, for tests about the
 * process itself: serve, graceful shutdown, kill -9 and restart, the CLI acting on a database file.
 */
import type { ChildProcess } from "node:child_process";
import { kernelBin, kernelCli, spawnProcess } from "../../src/testing/index.js";

export const BIN = kernelBin();

export interface KernelProcess {
  proc: ChildProcess;
  url: string;
  /** The process's output so far (stdout and stderr). */
  stderr: () => string;
  exited: Promise<number | null>;
}

export async function startKernel(args: string[], env: Record<string, string> = {}): Promise<KernelProcess> {
  const p = spawnProcess(process.execPath, [BIN, "serve", "--port", "0", "--log-level", "warn", ...args], {
    env: { ...process.env, ...env },
    name: "cap-kernel serve",
  });
  const url = (await p.waitForOutput(/listening on (http:\/\/\S+)/, 30_000))[1]!;
  return { proc: p.child, url, stderr: p.output, exited: p.exited };
}

/** Run a CLI command to completion; resolves with stdout (rejects with stderr on a non-zero exit). */
export const cli = (args: string[], env: Record<string, string> = {}): Promise<string> =>
  kernelCli(args, env);

export async function api(url: string, token: string | null, method = "GET", body?: unknown) {
  const r = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined, headers: r.headers };
}
