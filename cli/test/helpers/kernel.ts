/**
 * The real reference kernel for end-to-end tests: `cap-kernel provision` makes a fresh SQLite file
 * with one admin human (lily) and one pod, `cap-kernel serve --port 0` serves it (the URL is read
 * from its "listening on" line, so no port race), and the admin surface gives the test what a
 * human or an operator would do: post, read messages, read the queue, revoke a token. Readiness and
 * shutdown are awaited, never guessed.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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

export interface QueuedEvent {
  id: string;
  type: string;
  state: string;
  attempts: number;
  payload: Record<string, unknown>;
  leaseExpiresAt: string | null;
  ackedAt: string | null;
  /** End of the latest release delay (feature `release`); null when never released. */
  availableAt?: string | null;
  /** The reason given with the latest release; null when none. */
  releaseReason?: string | null;
}

export interface PodMessage {
  id: string;
  content: string;
  replyToMessageId?: string;
  author: { name: string; kind: string };
}

export class TestKernel {
  readonly dir = mkdtempSync(join(tmpdir(), "commonly-cli-kernel-"));
  readonly db: string;
  url = "";
  podId = "";
  adminToken = "";
  stderr = "";
  #child: ChildProcess | undefined;

  /** `db`: a `--db` URL (e.g. a PostgreSQL the test can restart); default a fresh SQLite file. */
  constructor(
    readonly options: { leaseSeconds?: number; maxAttempts?: number; db?: string; profile?: string } = {},
  ) {
    this.db = options.db ?? `sqlite:${join(this.dir, "kernel.db")}`;
  }

  async start(): Promise<this> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [KERNEL_BIN, "provision", "--db", this.db, "--admin", "lily", "--pod", "lab"],
      { timeout: 60_000 },
    );
    const out = JSON.parse(stdout) as { users: Array<{ token: string }>; pods: Array<{ id: string }> };
    this.adminToken = out.users[0]!.token;
    this.podId = out.pods[0]!.id;
    const args = ["serve", "--db", this.db, "--port", "0", "--log-level", "warn"];
    if (this.options.leaseSeconds) args.push("--lease-seconds", String(this.options.leaseSeconds));
    if (this.options.maxAttempts) args.push("--max-attempts", String(this.options.maxAttempts));
    if (this.options.profile) args.push("--profile", this.options.profile);
    const child = spawn(process.execPath, [KERNEL_BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    this.#child = child;
    child.stderr!.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
    const url = await waitUntil(
      () => {
        if (child.exitCode !== null) throw new Error(`cap-kernel exited: ${this.stderr}`);
        return /listening on (http:\/\/\S+)/.exec(this.stderr)?.[1];
      },
      "cap-kernel says it is listening",
      { timeoutMs: 60_000, everyMs: 20 },
    );
    this.url = url;
    return this;
  }

  async dispose(): Promise<void> {
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  async admin<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    token = this.adminToken,
  ): Promise<T> {
    const response = await fetch(`${this.url}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} /api${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Post into the pod as lily (a human). */
  async say(content: string): Promise<string> {
    return (await this.admin<{ id: string }>("POST", `/pods/${this.podId}/messages`, { content })).id;
  }

  /** The pod's messages, newest first. */
  async messages(): Promise<PodMessage[]> {
    return (await this.admin<{ messages: PodMessage[] }>("GET", `/pods/${this.podId}/messages?limit=100`))
      .messages;
  }

  /** Waits until a message by `agent` replying to `messageId` is in the pod. */
  async replyTo(messageId: string, agent: string, timeoutMs = 30_000): Promise<PodMessage> {
    return waitUntil(
      async () =>
        (await this.messages()).find((m) => m.replyToMessageId === messageId && m.author.name === agent),
      `${agent} replies to ${messageId}`,
      { timeoutMs, everyMs: 50 },
    );
  }

  /** The agent's events in the pod, from the operator queue view (newest first). */
  async queue(agent: string): Promise<QueuedEvent[]> {
    const q = await this.admin<{ agents: Array<{ agentName: string; events: QueuedEvent[] }> }>(
      "GET",
      `/admin/pods/${this.podId}/queue`,
    );
    return q.agents.find((a) => a.agentName === agent)?.events ?? [];
  }

  async tokens(
    agent: string,
  ): Promise<Array<{ id: string; lastUsedAt: string | null; revokedAt: string | null }>> {
    return (
      await this.admin<{ tokens: never[] }>(
        "GET",
        `/registry/pods/${this.podId}/agents/${agent}/runtime-tokens`,
      )
    ).tokens;
  }

  /** Inject an event for `agent` (operator route). */
  async emit(agent: string, type: string, payload: Record<string, unknown> = {}): Promise<string> {
    const body = { agentName: agent, podId: this.podId, type, payload };
    return (await this.admin<{ id: string }>("POST", "/admin/events", body)).id;
  }

  async revokeToken(agent: string, tokenId: string): Promise<void> {
    await this.admin("DELETE", `/registry/pods/${this.podId}/agents/${agent}/runtime-tokens/${tokenId}`);
  }

  /** A CAP call with an agent's runtime token. */
  async cap<T = unknown>(
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.url}/api/agents/runtime${path}`, {
      method,
      headers: {
        ...headers,
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
}
