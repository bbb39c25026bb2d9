/**
 * Runs the built `cap-kernel` (dist/bin.js) as a real process on a real socket, for tests about the
 * process itself: serve, graceful shutdown, kill -9 and restart, the CLI acting on a database file.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "bin.js");

export interface KernelProcess {
  proc: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

export async function startKernel(args: string[], env: Record<string, string> = {}): Promise<KernelProcess> {
  const proc = spawn(process.execPath, [BIN, "serve", "--port", "0", "--log-level", "warn", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  proc.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cap-kernel did not start in 30 s:\n${err}`)), 30_000);
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`cap-kernel exited with ${code} before listening:\n${err}`));
    });
  });
  return { proc, url, stderr: () => err, exited };
}

/** Run a CLI command to completion; resolves with stdout (rejects with stderr on a non-zero exit). */
export function cli(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`cap-kernel ${args.join(" ")} failed: ${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

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
