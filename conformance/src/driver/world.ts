/**
 * The kernel the driver suite plays: the reference kernel (`@commonly/cap-kernel`, an optional peer
 * dependency loaded here on first use: reference-kernel.ts) as a library,
 * in-process, on an in-memory SQLite store, with a short configured lease. It provisions a human, pods and
 * a fresh agent identity per scenario, and reads the truth back through the kernel's services (event
 * states as stored, messages in a pod) — what the scenario judges besides the wire. It never talks to the
 * driver; the proxy does.
 */
import type { Kernel, KernelApp } from "@commonly/cap-kernel";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { loadReferenceKernel } from "./reference-kernel.js";

export interface Human {
  id: string;
  name: string;
  token: string;
}

export interface Pod {
  id: string;
  name: string;
}

export interface Agent {
  name: string;
  instanceId: string;
  agentId: string;
  token: string;
  tokenId: string;
  /** Pods it is installed in; the first is the one the driver is told about (`CAP_POD_ID`). */
  pods: Pod[];
}

export interface PodMessage {
  id: string;
  podId: string;
  content: string;
  authorKind: "human" | "agent";
  authorId: string;
  replyToMessageId: string | null;
  createdAt: number;
}

export interface EventState {
  id: string;
  type: string;
  podId: string;
  state: string;
  attempts: number;
  ackedAt: number | null;
  result: unknown;
}

const caller = (h: Human) => ({
  kind: "human" as const,
  userId: h.id,
  name: h.name,
  isAdmin: true,
  tokenId: "cap-conformance-driver",
});

export class World {
  private agents = 0;
  private constructor(
    private readonly app: KernelApp,
    readonly url: string,
    readonly human: Human,
    readonly runId: string,
  ) {}

  static async start(o: { leaseSeconds: number; maxAttempts: number; runId: string }): Promise<World> {
    const { buildApp } = await loadReferenceKernel();
    const app = await buildApp({
      db: "sqlite::memory:",
      config: { leaseSeconds: o.leaseSeconds, maxAttempts: o.maxAttempts, longPollBackstopMs: 100 },
      logger: false,
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const { user, token } = await app.kernel.users.createUser({
      name: `driver-suite-${o.runId}`,
      isAdmin: true,
      tokenLabel: "cap-conformance driver",
    });
    return new World(app, `http://127.0.0.1:${port}`, { id: user.id, name: user.name, token }, o.runId);
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.app.kernel.close();
  }

  // Private, like `app`: the suite's published declarations must not name the kernel's types, since the
  // kernel is an optional peer a `run`-only install does not have.
  private get kernel(): Kernel {
    return this.app.kernel;
  }

  /** What the kernel's `GET /info` answers `token` (null unless 200), asked in-process. */
  async info(token: string): Promise<Record<string, unknown> | null> {
    const answer = await this.app.inject({
      method: "GET",
      url: `${CAP_BASE_PATH}/info`,
      headers: { authorization: `Bearer ${token}` },
    });
    return answer.statusCode === 200 ? (answer.json() as Record<string, unknown>) : null;
  }

  async createPod(label: string): Promise<Pod> {
    const pod = await this.kernel.pods.createPod(this.human.id, `${label}-${this.runId}`);
    return { id: pod.id, name: pod.name };
  }

  /** A fresh agent identity installed in `pods`, with a fresh runtime token. */
  async createAgent(label: string, pods: Pod[]): Promise<Agent> {
    const name = `drv-${label}-${this.runId}-${++this.agents}`.slice(0, 64);
    const who = caller(this.human);
    await this.kernel.registry.publishAs(this.human.id, true, { name });
    for (const pod of pods) await this.kernel.registry.install(who, { agentName: name, podId: pod.id });
    const first = pods[0];
    if (!first) throw new Error("an agent needs at least one pod");
    const { token, record } = await this.kernel.registry.issueToken(who, first.id, name, {
      label: "cap-conformance driver",
    });
    const inst = await this.kernel.registry.findActiveInstallation(first.id, name);
    if (!inst) throw new Error(`agent ${name} has no installation after install`);
    return { name, instanceId: "default", agentId: inst.agentId, token, tokenId: record.id, pods };
  }

  async revoke(agent: Agent): Promise<void> {
    const pod = agent.pods[0];
    if (!pod) return;
    await this.kernel.registry.revokeToken(caller(this.human), pod.id, agent.name, agent.tokenId);
  }

  /** A human message; returns its id (fan-out enqueues the agent's event in the same transaction). */
  async say(podId: string, content: string): Promise<string> {
    const m = await this.kernel.messages.postAsHuman(caller(this.human), podId, { content });
    return m.id;
  }

  /**
   * A human message posted over the kernel's own HTTP route with these request headers (trace context:
   * the route reads them as any client's); its id, or null unless the kernel answered 2xx with one.
   */
  async sayWith(podId: string, content: string, headers: Record<string, string>): Promise<string | null> {
    const answer = await this.app.inject({
      method: "POST",
      url: `/api/pods/${encodeURIComponent(podId)}/messages`,
      headers: {
        ...headers,
        authorization: `Bearer ${this.human.token}`,
        "content-type": "application/json",
      },
      payload: JSON.stringify({ content }),
    });
    const body =
      answer.statusCode < 300 ? (answer.json() as { id?: unknown; message?: { id?: unknown } }) : {};
    const id = body.id ?? body.message?.id;
    return answer.statusCode >= 200 && typeof id === "string" ? id : null;
  }

  /**
   * Cancel an event as the human, through the kernel's own cancel route (in-process, so the driver's fault
   * layer never sees it); the kernel's answer, `{ok, status, changed}`, or null unless 200.
   */
  async cancel(
    podId: string,
    eventId: string,
    reason: string,
  ): Promise<{ status: string; changed: boolean } | null> {
    const answer = await this.app.inject({
      method: "POST",
      url: `/api/pods/${encodeURIComponent(podId)}/events/${encodeURIComponent(eventId)}/cancel`,
      headers: { authorization: `Bearer ${this.human.token}`, "content-type": "application/json" },
      payload: JSON.stringify({ reason }),
    });
    return answer.statusCode === 200 ? (answer.json() as { status: string; changed: boolean }) : null;
  }

  /** Inject an arbitrary event for `agent` (the operator route the CLI's `emit` uses). */
  async emit(agent: Agent, podId: string, type: string, payload: Record<string, unknown>): Promise<string> {
    const e = await this.kernel.operator.emitDirect({ agentName: agent.name, podId, type, payload });
    return e.id;
  }

  async messages(podId: string): Promise<PodMessage[]> {
    const rows = await this.kernel.messages.list(caller(this.human), podId, { limit: 500 });
    return rows
      .map((m) => ({
        id: m.id,
        podId: m.podId,
        content: m.content,
        authorKind: m.author.kind as PodMessage["authorKind"],
        authorId: m.author.id,
        replyToMessageId: m.replyToMessageId ?? null,
        createdAt: Date.parse(m.createdAt),
      }))
      .reverse();
  }

  /** Every message the agent wrote, in every pod it is installed in, oldest first. */
  async agentMessages(agent: Agent): Promise<PodMessage[]> {
    const all = await Promise.all(agent.pods.map((p) => this.messages(p.id)));
    return all
      .flat()
      .filter((m) => m.authorKind === "agent" && m.authorId === agent.agentId)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async event(id: string): Promise<EventState | null> {
    const e = await this.kernel.operator.eventDirect(id);
    if (!e) return null;
    return {
      id: e.id,
      type: e.type,
      podId: e.podId,
      state: e.state,
      attempts: e.attempts,
      ackedAt: e.ackedAt,
      result: e.result,
    };
  }

  /** The agent's events in its pods (newest first as the store lists them). */
  async events(agent: Agent): Promise<EventState[]> {
    const out: EventState[] = [];
    for (const p of agent.pods) {
      const rows = await this.kernel.operator.podEventsDirect(p.id, 1000);
      for (const e of rows)
        if (e.agentId === agent.agentId)
          out.push({
            id: e.id,
            type: e.type,
            podId: e.podId,
            state: e.state,
            attempts: e.attempts,
            ackedAt: e.ackedAt,
            result: e.result,
          });
    }
    return out;
  }

  /** The agent's event created for human message `messageId`. */
  async eventFor(agent: Agent, podId: string, messageId: string): Promise<EventState | undefined> {
    const rows = await this.kernel.operator.podEventsDirect(podId, 1000);
    const e = rows.find(
      (r) => r.agentId === agent.agentId && (r.payload as { messageId?: unknown }).messageId === messageId,
    );
    return e ? ((await this.event(e.id)) ?? undefined) : undefined;
  }
}
