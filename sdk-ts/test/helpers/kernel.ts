/**
 * The real reference kernel for integration tests: provisions a fresh SQLite file (one admin, one
 * pod, the named agents), serves it from `node reference-server/dist/bin.js serve` on a free port,
 * and offers the admin surface a test needs (inject events, post as a human, read the queue, revoke
 * a token). `stop()` kills the process and `start()` brings it back on the same port and database,
 * for outage tests. Waits are deadline polls, never guessed sleeps.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { waitUntil } from "./deadline.js";

export const KERNEL_BIN = resolve(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "reference-server",
  "dist",
  "bin.js",
);

/** Why integration tests cannot run here, or undefined when they can. */
export function kernelMissing(): string | undefined {
  return existsSync(KERNEL_BIN) ? undefined : `the reference kernel is not built (${KERNEL_BIN} missing)`;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface KernelAgent {
  name: string;
  token: string;
  tokenId: string;
  podId: string;
}

export interface KernelOptions {
  leaseSeconds?: number;
  maxAttempts?: number;
  /** Agent names to install in the pod (default echo, peer). */
  agents?: string[];
  /** Agents woken by every human message (`message.posted`); the others only by mentions (default: all). */
  listeners?: string[];
  /** `cap-kernel serve --profile` (default: `cap`). */
  profile?: string;
}

export class TestKernel {
  readonly dir = mkdtempSync(join(tmpdir(), "cap-sdk-kernel-"));
  readonly db = `sqlite:${join(this.dir, "kernel.db")}`;
  port = 0;
  url = "";
  podId = "";
  adminToken = "";
  agents: Record<string, KernelAgent> = {};
  stderr = "";
  #child: ChildProcess | undefined;

  constructor(readonly options: KernelOptions = {}) {}

  async provision(): Promise<void> {
    const names = this.options.agents ?? ["echo", "peer"];
    const listeners = this.options.listeners ?? names;
    const spec = {
      users: [{ name: "lily", admin: true }],
      pods: [{ name: "lab", owner: "lily" }],
      agents: names.map((name) => ({ name, pods: ["lab"], messagePosted: listeners.includes(name) })),
    };
    const specPath = join(this.dir, "provision.json");
    writeFileSync(specPath, JSON.stringify(spec));
    const args = ["provision", "--db", this.db, "--file", specPath];
    const { stdout } = await promisify(execFile)(process.execPath, [KERNEL_BIN, ...args], {
      timeout: 30_000,
    });
    const out = JSON.parse(stdout) as {
      users: Array<{ token: string }>;
      pods: Array<{ id: string }>;
      agents: Array<{ name: string; token: string; tokenId: string; podId: string }>;
    };
    this.adminToken = out.users[0]!.token;
    this.podId = out.pods[0]!.id;
    for (const a of out.agents)
      this.agents[a.name] = { name: a.name, token: a.token, tokenId: a.tokenId, podId: a.podId };
  }

  /** Serve (again) on the same port and database; resolves when /readyz answers 200. */
  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    this.url = `http://127.0.0.1:${this.port}`;
    const args = ["serve", "--db", this.db, "--port", String(this.port), "--log-level", "warn"];
    if (this.options.leaseSeconds) args.push("--lease-seconds", String(this.options.leaseSeconds));
    if (this.options.maxAttempts) args.push("--max-attempts", String(this.options.maxAttempts));
    if (this.options.profile) args.push("--profile", this.options.profile);
    const child = spawn(process.execPath, [KERNEL_BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    this.#child = child;
    child.stderr!.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
    let exited = false;
    child.once("exit", () => {
      exited = true;
    });
    await waitUntil(
      async () => {
        if (exited) throw new Error(`cap-kernel exited: ${this.stderr}`);
        const r = await fetch(`${this.url}/readyz`);
        return r.ok;
      },
      `cap-kernel answers /readyz on ${this.url}`,
      { timeoutMs: 20_000, everyMs: 25 },
    );
  }

  /** Kill the process (SIGKILL: an outage, not a shutdown) and wait for it to exit. */
  async stop(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill(signal);
    await exited;
    this.#child = undefined;
  }

  async dispose(): Promise<void> {
    await this.stop("SIGTERM");
    rmSync(this.dir, { recursive: true, force: true });
  }

  async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} /api${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Inject an event for `agent` (operator route). */
  async emit(agent: string, type: string, payload: Record<string, unknown> = {}): Promise<string> {
    const { id } = await this.admin<{ id: string }>("POST", "/admin/events", {
      agentName: agent,
      podId: this.podId,
      type,
      payload,
    });
    return id;
  }

  /** Post into the pod as the admin human. */
  async say(content: string): Promise<string> {
    return (await this.admin<{ id: string }>("POST", `/pods/${this.podId}/messages`, { content })).id;
  }

  async messages(): Promise<
    Array<{ id: string; content: string; replyToMessageId?: string; author: { name: string } }>
  > {
    return (await this.admin<{ messages: never[] }>("GET", `/pods/${this.podId}/messages?limit=100`))
      .messages;
  }

  /** The queue of `agent` in the pod, from the operator view. */
  async queue(agent: string): Promise<Array<{ id: string; state: string; attempts: number; type: string }>> {
    const q = await this.admin<{ agents: Array<{ agentName: string; events: never[] }> }>(
      "GET",
      `/admin/pods/${this.podId}/queue`,
    );
    return q.agents.find((a) => a.agentName === agent)?.events ?? [];
  }

  async state(agent: string, eventId: string): Promise<{ state: string; attempts: number } | undefined> {
    return (await this.queue(agent)).find((e) => e.id === eventId);
  }

  async revoke(agent: string): Promise<void> {
    const a = this.agents[agent]!;
    await this.admin("DELETE", `/registry/pods/${a.podId}/agents/${a.name}/runtime-tokens/${a.tokenId}`);
  }
}

/** Provision and start a kernel; the caller disposes it. */
export async function startKernel(options: KernelOptions = {}): Promise<TestKernel> {
  const kernel = new TestKernel(options);
  await kernel.provision();
  await kernel.start();
  return kernel;
}
