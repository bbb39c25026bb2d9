/**
 * A real reference kernel for tests, on any store (`--db`: a fresh SQLite file by default, `sqlite::memory:`
 * in-process, a PostgreSQL schema from `freshPgSchema()`), provisioned with one admin human, one pod and the
 * named agents with runtime tokens, plus what a test does as that human or as the operator: post, read
 * messages, read the queue, inject events, list and revoke tokens, call CAP with an agent's token.
 *
 * `startKernel`: `cap-kernel provision`, then `cap-kernel serve --port 0` as a child process, its URL read
 * from the line it prints (no port race). `startKernelInProcess`: the same kernel as a library in this
 * process (buildApp on a listening socket), for tests that start many kernels or need no process.
 *
 * Must never: reach into the kernel's store — everything goes through its CLI, its services or HTTP. The
 * one exception is `lockStore()`, which takes an SQLite file's write lock the way another process would,
 * to stage a store outage (the kernel then answers 503 store_unavailable).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type ProvisionSpec, provision } from "../cli/provision.js";
import type { KernelConfigInput } from "../config.js";
import { buildApp } from "../http/app.js";
import type { ProfileName } from "../profiles/index.js";
import { openapiFetch } from "./admin.js";
import { eventually } from "./deadline.js";
import { type Spawned, spawnProcess } from "./process.js";
import { type Provisioned, type TestKernel, testKernel } from "./test-kernel.js";

const run = promisify(execFile);

/**
 * The kernel's CLI: `CAP_KERNEL_BIN`, else the `bin.js` built beside this module (dist/testing → dist/),
 * or, when the kit runs from source (the kernel's own tests), the package's dist/bin.js.
 */
export function kernelBin(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = [resolve(here, "..", "bin.js"), resolve(here, "..", "..", "dist", "bin.js")];
  const bin = process.env.CAP_KERNEL_BIN ?? built.find((b) => existsSync(b)) ?? built[0]!;
  if (!existsSync(bin) || !bin.endsWith(".js"))
    throw new Error(
      `${bin} is not a built kernel: build it first (pnpm --filter @commonly/cap-kernel build)`,
    );
  return bin;
}

/** Why a test that needs the built kernel cannot run here, or undefined when it can. */
export function kernelMissing(): string | undefined {
  try {
    kernelBin();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Runs `cap-kernel <args>` to completion; resolves with stdout, rejects with stderr on failure. */
export async function kernelCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, [kernelBin(), ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
      maxBuffer: 1 << 22,
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`cap-kernel ${args.join(" ")} failed: ${e.stderr || e.message}`);
  }
}
export interface StartKernelOptions {
  /** Agent names to install in the pod, each with a runtime token (default none). */
  agents?: string[];
  /** Agents woken by every human message (`message.posted`); the others only by mentions (default all). */
  listeners?: string[];
  /** Pod and admin human names (default `lab`, `lily`). */
  pod?: string;
  human?: string;
  /** false: provision nothing (e.g. the conformance fixture provisions itself). Default true. */
  provision?: boolean;
  /** A `--db` URL; default a fresh SQLite file in a temporary directory. */
  db?: string;
  leaseSeconds?: number;
  maxAttempts?: number;
  /** The wire profile (`cap-kernel serve --profile`: `cap`, the default, or `production`). */
  profile?: string;
  /** Extra environment for the kernel process. */
  env?: NodeJS.ProcessEnv;
  /**
   * In-process only: kernel settings beside leaseSeconds and maxAttempts (e.g. `limits`); a process takes
   * its limits from `env` (`CAP_MAX_CANCEL_WATCHES_PER_TOKEN`, …).
   */
  config?: KernelConfigInput;
}

function provisionSpec(o: StartKernelOptions): ProvisionSpec {
  const human = o.human ?? "lily";
  const pod = o.pod ?? "lab";
  const names = o.agents ?? [];
  const listeners = o.listeners ?? names;
  return {
    users: [{ name: human, admin: true }],
    pods: [{ name: pod, owner: human }],
    agents: names.map((name) => ({ name, pods: [pod], messagePosted: listeners.includes(name) })),
  };
}

const serveArgs = (o: StartKernelOptions, db: string, port: number) => [
  "serve",
  "--db",
  db,
  "--host",
  "127.0.0.1",
  "--port",
  String(port),
  "--log-level",
  "warn",
  ...(o.leaseSeconds ? ["--lease-seconds", String(o.leaseSeconds)] : []),
  ...(o.maxAttempts ? ["--max-attempts", String(o.maxAttempts)] : []),
  ...(o.profile ? ["--profile", o.profile] : []),
];

/** Provisions (a fresh SQLite file unless `db` is given) and serves the kernel as a child process. */
export async function startKernel(options: StartKernelOptions = {}): Promise<TestKernel> {
  openapiFetch(); // the admin client's optional peer: missing, fail before a kernel is started
  const bin = kernelBin();
  const dir = mkdtempSync(join(tmpdir(), "cap-test-kernel-"));
  const db = options.db ?? `sqlite:${join(dir, "kernel.db")}`;
  let made: Provisioned = { users: [], pods: [], agents: [] };
  try {
    if (options.provision !== false) {
      const specPath = join(dir, "provision.json");
      writeFileSync(specPath, JSON.stringify(provisionSpec(options)));
      made = JSON.parse(await kernelCli(["provision", "--db", db, "--file", specPath])) as Provisioned;
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // A short busy wait, so a staged outage (lockStore) answers 503 quickly.
  const env = { ...process.env, CAP_SQLITE_BUSY_TIMEOUT_MS: "250", ...options.env };
  let server: Spawned | undefined;
  let url = "";
  const serve = async (port: number) => {
    const s = spawnProcess(process.execPath, [bin, ...serveArgs(options, db, port)], {
      name: "cap-kernel serve",
      env,
    });
    server = s;
    try {
      url = (await s.waitForOutput(/listening on (http:\/\/\S+)/, 60_000))[1]!;
    } catch (err) {
      await s.stop(2_000);
      throw err;
    }
  };
  try {
    await serve(0);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const k = testKernel(() => url, db, made, {
    process: () => server,
    app: undefined,
    async kill(signal = "SIGKILL") {
      await server?.stop(10_000, signal);
    },
    async restart() {
      await server?.stop();
      await serve(Number(new URL(url).port));
      await eventually(async () => (await fetch(`${url}/readyz`)).ok, `cap-kernel answers /readyz on ${url}`);
    },
    async stop() {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  return k;
}

/** The same kernel as a library in this process (default store `sqlite::memory:`), listening on a free port. */
export async function startKernelInProcess(options: StartKernelOptions = {}): Promise<TestKernel> {
  openapiFetch(); // as in startKernel
  const db = options.db ?? "sqlite::memory:";
  const app = await buildApp({
    db,
    config: {
      ...options.config,
      ...(options.leaseSeconds ? { leaseSeconds: options.leaseSeconds } : {}),
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    },
    ...(options.profile ? { profile: options.profile as ProfileName } : {}),
    logger: false,
  });
  let made: Provisioned = { users: [], pods: [], agents: [] };
  try {
    if (options.provision !== false) made = await provision(app.kernel, provisionSpec(options));
    await app.listen({ host: "127.0.0.1", port: 0 });
  } catch (err) {
    await app.close();
    await app.kernel.close();
    throw err;
  }
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const unsupported = (what: string) => () => Promise.reject(new Error(`${what}: not in-process`));
  return testKernel(() => url, db, made, {
    process: () => undefined,
    app,
    kill: unsupported("kill"),
    restart: unsupported("restart"),
    async stop() {
      await app.close();
      await app.kernel.close();
    },
  });
}
/**
 * `cap-kernel provision --for-conformance` on the kernel's database: the fixture the conformance suite
 * reads (with the store-outage hook when given), written to a temporary file. Returns its path and JSON.
 */
export async function provisionConformance(o: {
  db: string;
  baseUrl: string;
  leaseSeconds?: number;
  maxAttempts?: number;
  /** The fixture's store-outage hook, e.g. `storeOutageSwitch(db).commands`. */
  storeOutage?: { down: string; up: string };
}): Promise<{ path: string; fixture: Record<string, unknown> }> {
  const args = ["provision", "--for-conformance", "--db", o.db, "--base-url", o.baseUrl];
  if (o.leaseSeconds) args.push("--lease-seconds", String(o.leaseSeconds));
  if (o.maxAttempts) args.push("--max-attempts", String(o.maxAttempts));
  const fixture = JSON.parse(await kernelCli(args)) as Record<string, unknown>;
  if (o.storeOutage) fixture.storeOutage = o.storeOutage;
  const path = join(mkdtempSync(join(tmpdir(), "cap-conformance-fixture-")), "fixture.json");
  writeFileSync(path, JSON.stringify(fixture, null, 2));
  return { path, fixture };
}

/** A fresh SQLite file URL (`sqlite:…/kernel.db`) in a temporary directory, for kernels sharing one file. */
export const freshSqliteUrl = () =>
  `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-test-db-")), "kernel.db")}`;
