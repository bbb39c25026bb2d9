/**
 * Test helper: the real reference kernel (`@commonly/cap-kernel`, built) as child processes on free ports,
 * and its `provision --for-conformance` fixture. Every kernel started here is stopped by `stop()`; tests
 * call it in `afterAll`.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const kernelBin = join(
  dirname(createRequire(import.meta.url).resolve("@commonly/cap-kernel/package.json")),
  "dist",
  "bin.js",
);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface KernelOptions {
  db: string;
  leaseSeconds?: number;
  maxAttempts?: number;
  /** `cap-kernel serve --profile` (default: the kernel's default, `cap`). */
  profile?: string;
}

export interface RunningKernel {
  url: string;
  stop(): Promise<void>;
}

export async function startKernel(o: KernelOptions): Promise<RunningKernel> {
  const port = await freePort();
  const args = ["serve", "--port", String(port), "--db", o.db, "--log-level", "warn"];
  if (o.leaseSeconds) args.push("--lease-seconds", String(o.leaseSeconds));
  if (o.maxAttempts) args.push("--max-attempts", String(o.maxAttempts));
  if (o.profile) args.push("--profile", o.profile);
  const child: ChildProcess = spawn(process.execPath, [kernelBin, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (d) => {
    log += String(d);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cap-kernel exited early (${child.exitCode}): ${log}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`cap-kernel did not become ready on ${url}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

/** Run `cap-kernel provision --for-conformance` and write the fixture to a temp file; returns its path and JSON. */
export async function provisionFixture(
  o: KernelOptions & { baseUrl: string },
): Promise<{ path: string; fixture: Record<string, unknown> }> {
  const args = ["provision", "--for-conformance", "--db", o.db, "--base-url", o.baseUrl];
  if (o.leaseSeconds) args.push("--lease-seconds", String(o.leaseSeconds));
  if (o.maxAttempts) args.push("--max-attempts", String(o.maxAttempts));
  const { stdout } = await promisify(execFile)(process.execPath, [kernelBin, ...args], {
    maxBuffer: 1 << 20,
  });
  const fixture = JSON.parse(stdout) as Record<string, unknown>;
  const path = join(mkdtempSync(join(tmpdir(), "cap-conformance-fixture-")), "fixture.json");
  writeFileSync(path, JSON.stringify(fixture, null, 2));
  return { path, fixture };
}

/** A fresh SQLite file URL in a temp directory. */
export const sqliteUrl = () =>
  `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-conformance-db-")), "kernel.db")}`;
