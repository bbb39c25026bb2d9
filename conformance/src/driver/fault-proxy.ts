/**
 * The fault layer of `cap-conformance driver`: a small HTTP proxy in front of the in-process reference
 * kernel. It records every exchange a driver makes (tokens redacted at the moment of recording) and lets
 * the running scenario script misbehaviour per request: reset the connection, answer 502/503/429 with
 * `Retry-After`, hold a request, rewrite the query (strip `waitSeconds`) or the answer (hide features from
 * `/info`, add unknown fields), run something between the kernel's answer and the driver seeing it, or
 * pass a request on and lose the kernel's answer (a reset, or a gateway's error status in its place). A
 * held request whose driver hung up meanwhile is never passed on: it never reached the kernel.
 * It must never invent a success the kernel did not give: every 2xx a driver sees came from the kernel.
 */

import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { clip, type Exchange } from "../http/exchange.js";

/** What a request is, in CAP terms. */
export type RouteKind =
  | "info"
  | "poll"
  | "ack"
  | "batch-ack"
  | "renew"
  | "release"
  | "cancel"
  | "cancel-watch"
  | "post"
  | "read-messages"
  | "memory"
  | "memory-sync"
  | "decisions"
  | "other-cap"
  | "outside-cap";

const BASE = CAP_BASE_PATH;

export function routeKind(method: string, path: string): RouteKind {
  if (!path.startsWith(`${BASE}/`)) return "outside-cap";
  const p = path.slice(BASE.length);
  if (p === "/info" && method === "GET") return "info";
  if (p === "/events" && method === "GET") return "poll";
  if (p === "/events/ack" && method === "POST") return "batch-ack";
  if (/^\/events\/[^/]+\/ack$/.test(p) && method === "POST") return "ack";
  if (/^\/events\/[^/]+\/renew$/.test(p) && method === "POST") return "renew";
  if (/^\/events\/[^/]+\/release$/.test(p) && method === "POST") return "release";
  if (/^\/events\/[^/]+\/cancel$/.test(p) && method === "POST") return "cancel";
  if (/^\/events\/[^/]+\/cancellation$/.test(p) && method === "GET") return "cancel-watch";
  if (/^\/pods\/[^/]+\/messages$/.test(p)) return method === "POST" ? "post" : "read-messages";
  if (p === "/memory/sync") return "memory-sync";
  if (p === "/memory") return "memory";
  if (p === "/decisions") return "decisions";
  return "other-cap";
}

/** One recorded exchange, with what the suite needs to judge timing and routes. */
export interface WireExchange extends Exchange {
  kind: RouteKind;
  /** The event id in the path (ack, renew, release, cancel, cancel-watch). */
  eventId?: string;
  /** The pod id in the path (post, read-messages). */
  podId?: string;
  /** Epoch ms when the request arrived and when the answer (or the break) went out (`at` until then). */
  at: number;
  endAt: number;
  /** What the fault layer did instead of (or on top of) forwarding. */
  fault?: string;
  /** Parsed request body, when JSON. */
  requestJson?: unknown;
}

export interface ProxyRequest {
  readonly as: string;
  readonly method: string;
  /** Path and query as the driver sent them; `url` may be rewritten before forwarding. */
  readonly path: string;
  url: URL;
  readonly kind: RouteKind;
  readonly eventId?: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly json: unknown;
  readonly at: number;
}

export type Fault =
  | { kind: "reset" }
  | { kind: "status"; status: number; code: string; message?: string; retryAfter?: number }
  /** Hold the request this long, then forward it. */
  | { kind: "delay"; ms: number }
  /** Hold the request this long, then reset the connection (a long-poll that breaks). */
  | { kind: "reset-after"; ms: number }
  /**
   * Pass the request on, then lose the kernel's answer: reset the connection, or answer `instead` in its
   * place (a gateway that timed out after the kernel had acted).
   */
  | { kind: "lose-answer"; instead: "reset" | { status: number; code: string; message?: string } };

export interface ProxyScript {
  before?(req: ProxyRequest): Fault | undefined | Promise<Fault | undefined>;
  /** After the kernel answered: return a replacement JSON body, or undefined to pass it on. */
  after?(req: ProxyRequest, answer: { status: number; json: unknown }): unknown | Promise<unknown>;
}

const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

export class FaultProxy {
  private server?: Server;
  private seq = 0;
  private readonly sockets = new Set<Socket>();
  readonly exchanges: WireExchange[] = [];
  /** Scripts per token label; the label comes from the `secrets` map. */
  readonly scripts = new Map<string, ProxyScript>();
  private listeners: ((x: WireExchange) => void)[] = [];

  constructor(
    private readonly upstream: string,
    private readonly secrets: Map<string, string>,
  ) {}

  get url(): string {
    const a = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${a.port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.once("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((ok) => this.server?.listen(0, "127.0.0.1", ok));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }

  /** Called for every exchange once it is over. */
  onExchange(listener: (x: WireExchange) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private labelOf(headers: IncomingMessage["headers"]): string {
    const auth = headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const token = m?.[1] ?? String(headers["x-commonly-agent-token"] ?? "");
    return this.secrets.get(token) ?? (token ? "unknown-token" : "no-token");
  }

  private redact(text: string): string {
    let out = text;
    for (const [secret, label] of this.secrets)
      if (secret) out = out.split(secret).join(`<redacted:${label}>`);
    return out;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", this.upstream);
    const kind = routeKind(req.method ?? "GET", url.pathname);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = String(v);
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const eventId = /\/events\/([^/]+)\/(ack|renew|release|cancel|cancellation)$/.exec(url.pathname)?.[1];
    const podId = /\/pods\/([^/]+)\/messages$/.exec(url.pathname)?.[1];
    const as = this.labelOf(req.headers);
    const preq: ProxyRequest = {
      as,
      method: req.method ?? "GET",
      path: req.url ?? "/",
      url,
      kind,
      headers,
      body,
      json,
      at,
      ...(eventId ? { eventId: decodeURIComponent(eventId) } : {}),
    };
    const x: WireExchange = {
      seq: ++this.seq,
      as,
      kind,
      method: preq.method,
      url: this.redact(`${this.url}${preq.path}`),
      requestHeaders: Object.fromEntries(
        Object.entries(headers)
          .filter(([k]) => !hopByHop.has(k))
          .map(([k, v]) => [k, this.redact(v)]),
      ),
      ...(body ? { requestBody: clip(this.redact(body)) } : {}),
      ...(json !== undefined ? { requestJson: json } : {}),
      ...(preq.eventId ? { eventId: preq.eventId } : {}),
      ...(podId ? { podId: decodeURIComponent(podId) } : {}),
      status: 0,
      responseHeaders: {},
      responseBody: "",
      json: undefined,
      startedAt: new Date(at).toISOString(),
      durationMs: 0,
      at,
      endAt: at,
    };
    // Recorded on arrival (status 0 until answered): a long-poll in flight is a poll the driver made.
    this.exchanges.push(x);
    const done = () => {
      x.endAt = Date.now();
      x.durationMs = x.endAt - at;
      for (const l of this.listeners) l(x);
    };
    const script = this.scripts.get(as);
    // The driver hung up (its own timeout, an abort, or its process ended) before the answer went out.
    let hungUp = false;
    const hangUp = new Promise<void>((ok) =>
      res.once("close", () => {
        hungUp = !res.writableEnded;
        ok();
      }),
    );
    const hold = async (ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([hangUp, new Promise<void>((ok) => (timer = setTimeout(ok, ms)))]);
      clearTimeout(timer);
    };
    try {
      let fault = await script?.before?.(preq);
      if (fault?.kind === "delay") {
        x.fault = `held ${fault.ms} ms`;
        await hold(fault.ms);
        if (hungUp) {
          x.fault = `held; the driver hung up after ${Date.now() - at} ms, so it never reached the kernel`;
          return done();
        }
        fault = undefined;
      }
      if (fault?.kind === "reset-after") {
        x.fault = `connection reset after ${fault.ms} ms`;
        await hold(fault.ms);
        if (hungUp) x.fault = `held; the driver hung up after ${Date.now() - at} ms, before the reset`;
        req.socket.destroy();
        return done();
      }
      if (fault?.kind === "reset") {
        x.fault = "connection reset";
        req.socket.destroy();
        return done();
      }
      if (fault?.kind === "status") {
        const answer = JSON.stringify({ code: fault.code, message: fault.message ?? fault.code });
        const h: Record<string, string> = { "content-type": "application/json" };
        if (fault.retryAfter !== undefined) h["retry-after"] = String(fault.retryAfter);
        x.fault = `answered ${fault.status}${fault.retryAfter !== undefined ? ` Retry-After: ${fault.retryAfter}` : ""}`;
        this.reply(res, x, fault.status, h, answer);
        return done();
      }
      const up = await this.forward(preq, res);
      if (fault?.kind === "lose-answer") {
        const lost = `the kernel answered ${up.status}`;
        if (fault.instead === "reset") {
          x.fault = `connection reset after ${lost}: the answer was lost`;
          req.socket.destroy();
          return done();
        }
        const { status, code, message } = fault.instead;
        x.fault = `${lost}; the fault layer answered ${status} in its place`;
        const body = JSON.stringify({ code, message: message ?? code });
        this.reply(res, x, status, { "content-type": "application/json" }, body);
        return done();
      }
      let out = up.body;
      if (script?.after) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(up.body);
        } catch {
          parsed = undefined;
        }
        const replaced = await script.after(preq, { status: up.status, json: parsed });
        if (replaced !== undefined) {
          out = JSON.stringify(replaced);
          x.fault = "answer rewritten";
        }
      }
      this.reply(res, x, up.status, up.headers, out);
    } catch (e) {
      x.fault = `proxy error: ${(e as Error).message}`;
      if (!res.headersSent) this.reply(res, x, 502, { "content-type": "application/json" }, "{}");
    }
    done();
  }

  private reply(
    res: ServerResponse,
    x: WireExchange,
    status: number,
    headers: Record<string, string>,
    body: string,
  ): void {
    x.status = status;
    x.responseHeaders = headers;
    x.responseBody = clip(this.redact(body));
    try {
      x.json = body ? JSON.parse(body) : undefined;
    } catch {
      x.json = undefined;
    }
    if (res.destroyed) return;
    res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) });
    res.end(body);
  }

  private forward(
    preq: ProxyRequest,
    to: ServerResponse,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(preq.headers)) if (!hopByHop.has(k)) headers[k] = v;
      if (preq.body) headers["content-length"] = String(Buffer.byteLength(preq.body));
      const up = request(preq.url, { method: preq.method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && !hopByHop.has(k)) out[k] = String(v);
          resolve({ status: res.statusCode ?? 502, headers: out, body: Buffer.concat(chunks).toString() });
        });
        res.on("error", reject);
      });
      up.on("error", reject);
      // A driver that hangs up (stopped, or its own timeout) must not leave a long-poll holding events.
      to.once("close", () => up.destroy());
      up.end(preq.body || undefined);
    });
  }
}
