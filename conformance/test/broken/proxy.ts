/**
 * A test-only HTTP proxy in front of the real reference kernel that breaks exactly one behaviour. A
 * mutation sees each request (and may rewrite it, or answer it itself) and each response (and may rewrite
 * it); everything else passes through unchanged. The suite then runs against the proxy's URL.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxyRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** Parsed JSON body; rewrite it (in place or by replacing it) to change what is forwarded. */
  json: unknown;
  /** Raw body, forwarded when `json` is undefined. */
  body: string | undefined;
  /** The bearer token, when there is one. */
  token?: string;
}

/** An answer; sent as JSON when `json` is set, else `body` as is. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  json: unknown;
  body: string;
}

export interface Mutation {
  request?(req: ProxyRequest): ProxyRequest | Reply | Promise<ProxyRequest | Reply>;
  response?(req: ProxyRequest, res: Reply): Reply | Promise<Reply>;
}

export const isReply = (x: ProxyRequest | Reply): x is Reply => "status" in x;

/** Thrown by a mutation to close the client's connection without any answer (a kernel that hangs up). */
export class HangUp extends Error {
  override name = "HangUp";
}

/** A JSON reply (for mutations that answer on the kernel's behalf). */
export const reply = (status: number, json: unknown): Reply => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8" },
  json,
  body: JSON.stringify(json),
});

const hop = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "content-encoding",
]);

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const parse = (text: string | undefined): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

export async function startProxy(upstream: string, mutation: Mutation): Promise<RunningProxy> {
  const server: Server = createServer(async (req, res) => {
    try {
      const raw = await read(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (!hop.has(k) && typeof v === "string") headers[k] = v;
      const auth = headers.authorization;
      let pr: ProxyRequest | Reply = {
        method: req.method ?? "GET",
        url: new URL(req.url ?? "/", upstream),
        headers,
        json: parse(raw),
        body: raw.length > 0 ? raw : undefined,
        ...(auth?.startsWith("Bearer ") ? { token: auth.slice(7) } : {}),
      };
      if (mutation.request) pr = await mutation.request(pr);
      let out: Reply;
      if (isReply(pr)) out = pr;
      else {
        const body = pr.json !== undefined ? JSON.stringify(pr.json) : pr.body;
        const r = await fetch(pr.url, {
          method: pr.method,
          headers: pr.headers,
          ...(body !== undefined ? { body } : {}),
        });
        const text = await r.text();
        const h: Record<string, string> = {};
        r.headers.forEach((v, k) => {
          if (!hop.has(k)) h[k] = v;
        });
        out = { status: r.status, headers: h, json: parse(text), body: text };
        if (mutation.response) out = await mutation.response(pr, out);
      }
      const text = out.json !== undefined ? JSON.stringify(out.json) : out.body;
      res.writeHead(out.status, { ...out.headers, "content-length": Buffer.byteLength(text) });
      res.end(text);
    } catch (e) {
      if (e instanceof HangUp) req.socket.destroy();
      else res.writeHead(502, { "content-type": "text/plain" }).end(`proxy error: ${(e as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
