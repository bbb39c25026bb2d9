/**
 * A fixture agent as a CAP client: one method per CAP operation, each returning the raw answer (status,
 * parsed body, exchange) so checks can judge it. No method throws on an HTTP status — deciding what a
 * status means is the check's job. `bare` sends any request with this agent's token. `demands` says, per
 * operation, which requirement defines its successful answer and what that answer is: what a check holds
 * an operation to when it only relies on it as a step.
 */
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import type { FixtureAgent } from "./config/fixture.js";
import type { RequestSpec } from "./http/client.js";
import type { Answer } from "./http/exchange.js";
import type { Timing } from "./timing.js";

export type Role = "a" | "b" | "c";
/** The CAP base path (declared once in the spec). */
export const R = CAP_BASE_PATH;

/** The event fields the suite reads; everything about an event is checked, nothing assumed. */
export interface WireEvent {
  id: string;
  type: string;
  podId: string;
  payload: unknown;
  attempts: number;
  createdAt: string;
  leaseExpiresAt?: string;
  [k: string]: unknown;
}

/**
 * What the requirement that defines a CAP operation demands of its successful answer. A check that relies
 * on the operation as a step (`CheckContext.setupAnswer`) holds the answer to this and, when it falls
 * short, names this requirement — not one of its own.
 */
export interface Demand {
  requirement: string;
  status: number;
  /** What the parsed body must be, beyond the status. */
  body?: (body: unknown) => boolean;
  /** The wanted answer as a failure shows it: `HTTP 201 {id, createdAt}`. */
  shows: string;
}

const field = (body: unknown, key: string): unknown =>
  body && typeof body === "object" ? (body as Record<string, unknown>)[key] : undefined;
const written = (b: unknown) => field(b, "ok") === true && field(b, "schemaVersion") === 2;

export const demands = {
  post: {
    requirement: "CAP-MSG-1",
    status: 201,
    body: (b) => typeof field(b, "id") === "string" && field(b, "id") !== "",
    shows: "HTTP 201 {id, createdAt}",
  },
  poll: {
    requirement: "CAP-EVT-1",
    status: 200,
    body: (b) => Array.isArray(field(b, "events")),
    shows: "HTTP 200 {events: [...]}",
  },
  ack: {
    requirement: "CAP-ACK-1",
    status: 200,
    body: (b) => field(b, "ok") === true,
    shows: 'HTTP 200 {"ok": true}',
  },
  getMemory: {
    requirement: "CAP-MEM-1",
    status: 200,
    body: (b) => typeof field(b, "sections") === "object" && field(b, "sections") !== null,
    shows: "HTTP 200 {content, sections, schemaVersion: 2}",
  },
  putMemory: {
    requirement: "CAP-MEM-8",
    status: 200,
    body: written,
    shows: 'HTTP 200 {"ok": true, "schemaVersion": 2}',
  },
  sync: {
    requirement: "CAP-MEM-14",
    status: 200,
    body: written,
    shows: 'HTTP 200 {"ok": true, "schemaVersion": 2, …}',
  },
  read: {
    requirement: "CAP-READ-1",
    status: 200,
    body: (b) => Array.isArray(field(b, "messages")),
    shows: "HTTP 200 {messages: [...]}",
  },
  decide: {
    requirement: "CAP-DEC-1",
    status: 201,
    body: (b) => typeof field(b, "id") === "string" && typeof field(b, "messageId") === "string",
    shows: "HTTP 201 {id, messageId, createdAt}",
  },
  info: { requirement: "CAP-INFO-1", status: 200, shows: "HTTP 200 {protocol, version, …}" },
  cancel: {
    requirement: "CAP-CANCEL-1",
    status: 200,
    body: (b) =>
      field(b, "ok") === true &&
      ["cancelled", "acked", "failed"].includes(field(b, "status") as string) &&
      typeof field(b, "changed") === "boolean",
    shows: 'HTTP 200 {"ok": true, "status": "cancelled" | "acked" | "failed", "changed": <boolean>}',
  },
} satisfies Record<string, Demand>;

export type Query = Record<string, string | number | undefined>;
type Extra = Partial<Omit<RequestSpec, "method" | "path" | "as">>;

/** What an agent client needs of the check running it (a `CheckContext` is one): a way to send, and time. */
export interface AgentTransport {
  send(spec: RequestSpec): Promise<Answer>;
  readonly timing: Timing;
}

export class AgentApi {
  constructor(
    private readonly ctx: AgentTransport,
    readonly role: Role,
    readonly agent: FixtureAgent,
  ) {}

  get name(): string {
    return this.agent.name;
  }

  bare(method: string, path: string, extra: Extra = {}): Promise<Answer> {
    return this.ctx.send({ method, path, token: this.agent.token, as: this.role, ...extra });
  }

  poll(query: Query = {}, extra: Extra = {}): Promise<Answer<{ events: WireEvent[] }>> {
    const wait = Math.max(0, Math.min(60, Number(query.waitSeconds ?? 0) || 0));
    const timeoutMs = (wait + 15) * 1000 * this.ctx.timing.timeScale;
    return this.bare("GET", `${R}/events`, { query, timeoutMs, ...extra }) as Promise<
      Answer<{ events: WireEvent[] }>
    >;
  }

  ack(id: string, body?: unknown, extra: Extra = {}): Promise<Answer> {
    return this.bare("POST", `${R}/events/${encodeURIComponent(id)}/ack`, {
      ...(body !== undefined ? { body } : {}),
      ...extra,
    });
  }

  renew(id: string, attempts: number, extra: Extra = {}): Promise<Answer> {
    return this.bare("POST", `${R}/events/${encodeURIComponent(id)}/renew`, { body: { attempts }, ...extra });
  }

  release(id: string, body: unknown, extra: Extra = {}): Promise<Answer> {
    return this.bare("POST", `${R}/events/${encodeURIComponent(id)}/release`, { body, ...extra });
  }

  /** Batch ack (`batch-ack`): `POST /events/ack {acks}`. */
  ackMany(body: unknown, extra: Extra = {}): Promise<Answer> {
    return this.bare("POST", `${R}/events/ack`, { body, ...extra });
  }

  /** Cancel one of this agent's events (`cancel`): `POST /events/{id}/cancel`, the body optional. */
  cancel(id: string, body?: unknown, extra: Extra = {}): Promise<Answer> {
    return this.bare("POST", `${R}/events/${encodeURIComponent(id)}/cancel`, {
      ...(body !== undefined ? { body } : {}),
      ...extra,
    });
  }

  /** Watch a delivery for a cancel (`cancel`): `GET /events/{id}/cancellation?attempts&waitSeconds`. */
  cancellation(id: string, query: Query, extra: Extra = {}): Promise<Answer> {
    const wait = Math.max(0, Math.min(60, Number(query.waitSeconds ?? 0) || 0));
    const timeoutMs = (wait + 15) * 1000 * this.ctx.timing.timeScale;
    return this.bare("GET", `${R}/events/${encodeURIComponent(id)}/cancellation`, {
      query,
      timeoutMs,
      ...extra,
    });
  }

  post(podId: string, body: unknown, extra: Extra = {}): Promise<Answer> {
    return this.bare("POST", `${R}/pods/${encodeURIComponent(podId)}/messages`, { body, ...extra });
  }

  read(podId: string, query: Query = {}): Promise<Answer> {
    return this.bare("GET", `${R}/pods/${encodeURIComponent(podId)}/messages`, { query });
  }

  getMemory(): Promise<Answer> {
    return this.bare("GET", `${R}/memory`);
  }

  putMemory(body: unknown, extra: Extra = {}): Promise<Answer> {
    return this.bare("PUT", `${R}/memory`, { body, ...extra });
  }

  sync(body: unknown): Promise<Answer> {
    return this.bare("POST", `${R}/memory/sync`, { body });
  }

  info(): Promise<Answer> {
    return this.bare("GET", `${R}/info`);
  }

  decide(body: unknown): Promise<Answer> {
    return this.bare("POST", `${R}/decisions`, { body });
  }
}
