/**
 * A real `cap-kernel` for end-to-end tests of the console and the examples: provisions a fresh SQLite file
 * (`cap-kernel provision`: one admin human, one pod, the named agents with runtime tokens), then runs
 * `cap-kernel serve --port 0` on it and reads the URL it prints. Plus a small client for the admin API,
 * which the tests use to act as the human and to read the kernel's state.
 *
 * Must never: reach into the kernel's database or internals — everything goes through its CLI and HTTP.
 * The one exception is `lockStore()`, which takes the SQLite file's write lock the way another process
 * would, to stage a store outage (the kernel then answers 503 store_unavailable).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Spawned, spawnProcess } from "./process.js";

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The kernel's CLI: `CAP_KERNEL_BIN`, or the monorepo's built `reference-server/dist/bin.js`. */
export function kernelBin(): string {
  const bin = process.env.CAP_KERNEL_BIN ?? join(repoRoot, "reference-server", "dist", "bin.js");
  if (!existsSync(bin)) {
    throw new Error(
      `${bin} does not exist: build the kernel first (pnpm --filter @commonly/cap-kernel build)`,
    );
  }
  return bin;
}

export interface KernelAgent {
  name: string;
  instanceId: string;
  podId: string;
  token: string;
}

export interface TestKernel {
  url: string;
  podId: string;
  human: { id: string; name: string; token: string };
  agents: Record<string, KernelAgent>;
  admin: AdminClient;
  process: Spawned;
  /**
   * Stages a store outage: another connection holds the database's write lock until the returned function
   * is called, so every request that writes answers 503 store_unavailable (after a 250 ms busy wait).
   */
  lockStore(): () => void;
  stop(): Promise<void>;
}

export interface StartKernelOptions {
  /** Agent names to install in the pod, each with a runtime token. */
  agents: string[];
  pod?: string;
  human?: string;
  leaseSeconds?: number;
  maxAttempts?: number;
  /** `cap-kernel serve --profile` (default: the kernel's, `cap`). */
  profile?: string;
}

export async function startKernel(options: StartKernelOptions): Promise<TestKernel> {
  const bin = kernelBin();
  const dir = mkdtempSync(join(tmpdir(), "cap-e2e-kernel-"));
  const db = `sqlite:${join(dir, "kernel.db")}`;
  const pod = options.pod ?? "e2e";
  const human = options.human ?? "tester";
  const timing = [
    ...(options.leaseSeconds ? ["--lease-seconds", String(options.leaseSeconds)] : []),
    ...(options.maxAttempts ? ["--max-attempts", String(options.maxAttempts)] : []),
    ...(options.profile ? ["--profile", options.profile] : []),
  ];
  const provisionArgs = [bin, "provision", "--db", db, "--admin", human, "--pod", pod];
  for (const a of options.agents) provisionArgs.push("--agent", `${a}@${pod}`);
  const { stdout } = await run(process.execPath, provisionArgs, { timeout: 30_000 });
  const made = JSON.parse(stdout) as {
    users: { id: string; name: string; token: string }[];
    pods: { id: string; name: string }[];
    agents: { name: string; instanceId: string; podId: string; token: string }[];
  };

  const server = spawnProcess(
    process.execPath,
    [bin, "serve", "--db", db, "--host", "127.0.0.1", "--port", "0", "--log-level", "warn", ...timing],
    // A short busy wait, so a staged outage (lockStore) answers 503 quickly.
    { name: "cap-kernel serve", env: { ...process.env, CAP_SQLITE_BUSY_TIMEOUT_MS: "250" } },
  );
  let url: string;
  try {
    url = (await server.waitForOutput(/listening on (http:\/\/\S+)/))[1]!;
  } catch (err) {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const user = made.users[0]!;
  const agents = Object.fromEntries(made.agents.map((a) => [a.name, { ...a }]));
  return {
    url,
    podId: made.pods[0]!.id,
    human: { id: user.id, name: user.name, token: user.token },
    agents,
    admin: adminClient(url, user.token),
    process: server,
    lockStore() {
      // better-sqlite3 as the kernel itself resolves it (the console package does not depend on it).
      const Database = createRequire(bin)("better-sqlite3");
      const other = new Database(db.slice("sqlite:".length));
      other.exec("BEGIN IMMEDIATE");
      return () => {
        other.exec("ROLLBACK");
        other.close();
      };
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface AdminClient {
  // biome-ignore lint/suspicious/noExplicitAny: test code reads untyped JSON; callers may narrow with T.
  get<T = any>(path: string): Promise<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  post<T = any>(path: string, body?: unknown): Promise<T>;
}

/** JSON over the admin API (or any route) with a bearer token; throws with the kernel's `{code, message}`. */
export function adminClient(baseUrl: string, token: string): AdminClient {
  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }
  return {
    get: (path) => call("GET", path),
    post: (path, body) => call("POST", path, body),
  };
}
