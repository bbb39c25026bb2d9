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
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type ProvisionSpec, provision } from "../cli/provision.js";
import { buildApp, type KernelApp } from "../http/app.js";
import type { ProfileName } from "../profiles/index.js";
import { type AdminApi, type AdminClient, adminApi, adminClient } from "./admin.js";
import { eventually } from "./deadline.js";
import { type Spawned, spawnProcess } from "./process.js";

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

export interface KernelAgent {
  name: string;
  instanceId: string;
  podId: string;
  token: string;
  tokenId: string;
}

export interface QueuedEvent {
  id: string;
  type: string;
  state: string;
  attempts: number;
  payload: Record<string, unknown>;
  leaseExpiresAt: string | null;
  ackedAt: string | null;
  availableAt?: string | null;
  releaseReason?: string | null;
}

export interface PodMessage {
  id: string;
  content: string;
  replyToMessageId?: string;
  author: { id: string; name: string; kind: string };
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
}

export interface TestKernel {
  url: string;
  db: string;
  podId: string;
  human: { id: string; name: string; token: string };
  agents: Record<string, KernelAgent>;
  /** The admin API as the admin human, typed by the spec (openapi-fetch). */
  api: AdminApi;
  /** Untyped JSON on any path as the admin human (`admin.get(`/api/pods/${id}`)`). */
  admin: AdminClient;
  /** The process's output so far (stdout and stderr); "" in-process. */
  output(): string;
  /** The child process (undefined in-process). */
  process: Spawned | undefined;
  /** The app (undefined for a process). */
  app: KernelApp | undefined;
  /** Post into the pod as the human; returns the message id. */
  say(content: string): Promise<string>;
  /** The pod's messages, newest first. */
  messages(): Promise<PodMessage[]>;
  /** Waits until a message by `agent` replying to `messageId` is in the pod. */
  replyTo(messageId: string, agent: string, timeoutMs?: number): Promise<PodMessage>;
  /** The agent's events in the pod, from the operator queue view (newest first). */
  queue(agent: string): Promise<QueuedEvent[]>;
  state(agent: string, eventId: string): Promise<QueuedEvent | undefined>;
  /** Inject an event for `agent` in the pod (operator route); returns its id. */
  emit(agent: string, type: string, payload?: Record<string, unknown>): Promise<string>;
  tokens(agent: string): Promise<Array<{ id: string; lastUsedAt: string | null; revokedAt: string | null }>>;
  /** Revokes a runtime token of `agent` (default the one provisioned). */
  revokeToken(agent: string, tokenId?: string): Promise<void>;
  /** A CAP call with an agent's runtime token; never throws on a status. */
  cap<T = unknown>(
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T }>;
  /** Stages a store outage on an SQLite file: another connection holds the write lock until called back. */
  lockStore(): () => void;
  /** An outage: kill the process (default SIGKILL) and wait for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Serve again on the same port and database; resolves when /readyz answers 200. */
  restart(): Promise<void>;
  /** Shut down (SIGTERM / app close) and remove the temporary directory. */
  stop(): Promise<void>;
}

interface Provisioned {
  users: { id: string; name: string; token: string }[];
  pods: { id: string; name: string }[];
  agents: KernelAgent[];
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
  const db = options.db ?? "sqlite::memory:";
  const app = await buildApp({
    db,
    config: {
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

function testKernel(
  url: () => string,
  db: string,
  made: Provisioned,
  life: {
    process: () => Spawned | undefined;
    app: KernelApp | undefined;
    kill: TestKernel["kill"];
    restart: TestKernel["restart"];
    stop: TestKernel["stop"];
  },
): TestKernel {
  const user = made.users[0] ?? { id: "", name: "", token: "" };
  const podId = made.pods[0]?.id ?? "";
  const agents: Record<string, KernelAgent> = {};
  for (const a of made.agents)
    agents[a.name] = {
      name: a.name,
      instanceId: a.instanceId,
      podId: a.podId,
      token: a.token,
      tokenId: a.tokenId,
    };
  // The URL is known once the kernel listens and stays the same across restart (same port).
  const admin = adminClient(url(), user.token);
  const api = adminApi(url(), user.token);
  const pod = { params: { path: { podId } } };
  const k: TestKernel = {
    get url() {
      return url();
    },
    db,
    podId,
    human: { id: user.id, name: user.name, token: user.token },
    agents,
    api,
    admin,
    output: () => life.process()?.output() ?? "",
    get process() {
      return life.process();
    },
    app: life.app,
    async say(content) {
      return (await api.POST("/api/pods/{podId}/messages", { ...pod, body: { content } })).data!.id;
    },
    async messages() {
      const { data } = await api.GET("/api/pods/{podId}/messages", {
        params: { path: { podId }, query: { limit: 100 } },
      });
      return data!.messages as PodMessage[];
    },
    replyTo(messageId, agent, timeoutMs = 30_000) {
      return eventually(
        async () =>
          (await k.messages()).find((m) => m.replyToMessageId === messageId && m.author.name === agent),
        `${agent} replies to ${messageId}`,
        { timeoutMs, everyMs: 50 },
      );
    },
    async queue(agent) {
      const { data } = await api.GET("/api/admin/pods/{podId}/queue", pod);
      return (data!.agents.find((a) => a.agentName === agent)?.events ?? []) as QueuedEvent[];
    },
    async state(agent, eventId) {
      return (await k.queue(agent)).find((e) => e.id === eventId);
    },
    async emit(agent, type, payload = {}) {
      return (
        await admin.post<{ id: string }>("/api/admin/events", { agentName: agent, podId, type, payload })
      ).id;
    },
    async tokens(agent) {
      return (await admin.get(`/api/registry/pods/${podId}/agents/${agent}/runtime-tokens`)).tokens;
    },
    async revokeToken(agent, tokenId) {
      const id = tokenId ?? agents[agent]?.tokenId;
      await admin.delete(`/api/registry/pods/${podId}/agents/${agent}/runtime-tokens/${id}`);
    },
    async cap(token, method, path, body, headers = {}) {
      const response = await fetch(`${url()}/api/agents/runtime${path}`, {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      // biome-ignore lint/suspicious/noExplicitAny: the caller names the body's type.
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
    },
    lockStore() {
      if (!db.startsWith("sqlite:") || db === "sqlite::memory:")
        throw new Error(`lockStore stages an outage of an SQLite file, not of ${db}`);
      // better-sqlite3 as the kernel itself resolves it.
      const Database = createRequire(import.meta.url)("better-sqlite3");
      const other = new Database(db.slice("sqlite:".length));
      other.exec("BEGIN IMMEDIATE");
      return () => {
        other.exec("ROLLBACK");
        other.close();
      };
    },
    kill: life.kill,
    restart: life.restart,
    stop: life.stop,
  };
  return k;
}

/**
 * `cap-kernel provision --for-conformance` on the kernel's database: the fixture the conformance suite
 * reads, written to a temporary file. Returns its path and JSON.
 */
export async function provisionConformance(o: {
  db: string;
  baseUrl: string;
  leaseSeconds?: number;
  maxAttempts?: number;
}): Promise<{ path: string; fixture: Record<string, unknown> }> {
  const args = ["provision", "--for-conformance", "--db", o.db, "--base-url", o.baseUrl];
  if (o.leaseSeconds) args.push("--lease-seconds", String(o.leaseSeconds));
  if (o.maxAttempts) args.push("--max-attempts", String(o.maxAttempts));
  const fixture = JSON.parse(await kernelCli(args)) as Record<string, unknown>;
  const path = join(mkdtempSync(join(tmpdir(), "cap-conformance-fixture-")), "fixture.json");
  writeFileSync(path, JSON.stringify(fixture, null, 2));
  return { path, fixture };
}

/** A fresh SQLite file URL (`sqlite:…/kernel.db`) in a temporary directory, for kernels sharing one file. */
export const freshSqliteUrl = () =>
  `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-test-db-")), "kernel.db")}`;
