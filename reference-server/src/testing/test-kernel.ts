/**
 * The object a test holds for a running kernel (process or in-process): its URL, store, the provisioned
 * human, pod and agents, and what a test does as that human or as the operator — through the admin API
 * typed by the spec, and CAP with an agent's token.
 */
import { createRequire } from "node:module";
import type { KernelApp } from "../http/app.js";
import { type AdminApi, type AdminClient, adminApi, adminClient } from "./admin.js";
import { eventually } from "./deadline.js";
import type { Spawned } from "./process.js";

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
  /** Feature `cancel`: set when `state` is `cancelled`. */
  cancelReason?: string | null;
  cancelledAt?: string | null;
  cancelledBy?: { kind: "human" | "agent" | "operator" | "kernel"; id: string } | null;
  /** Feature `trace-context`: the context the event carries, when it has one. */
  traceContext?: { traceparent: string; tracestate?: string };
}

export interface PodMessage {
  id: string;
  content: string;
  replyToMessageId?: string;
  author: { id: string; name: string; kind: string };
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
  /** Cancel an event of the pod as the human (feature `cancel`: the console's Stop). */
  cancel(eventId: string, reason?: string): Promise<{ status: string; changed: boolean }>;
  /** Sets `agent`'s double-texting policy in the pod (feature `cancel`). */
  setDoubleTexting(agent: string, policy: "enqueue" | "interrupt"): Promise<void>;
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

export interface Provisioned {
  users: { id: string; name: string; token: string }[];
  pods: { id: string; name: string }[];
  agents: KernelAgent[];
}

export function testKernel(
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
    async cancel(eventId, reason) {
      return admin.post<{ status: string; changed: boolean }>(
        `/api/pods/${podId}/events/${eventId}/cancel`,
        reason === undefined ? {} : { reason },
      );
    },
    async setDoubleTexting(agent, policy) {
      await admin.patch(`/api/registry/pods/${podId}/agents/${agent}`, { doubleTexting: policy });
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
