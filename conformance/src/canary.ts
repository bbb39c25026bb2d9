/**
 * The pull-only canary: a tiny HTTP listener whose URLs the suite plants in every writable field it sends
 * (message content and metadata, memory sections, ack reasons, decision context). CAP is pull-only, so a
 * conforming kernel never connects to any of them; every inbound hit is evidence against the kernel.
 * It must never answer anything useful — a 204 and a record of who knocked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface CanaryHit {
  at: string;
  method: string;
  path: string;
  userAgent?: string;
}

export class Canary {
  readonly hits: CanaryHit[] = [];
  private server?: Server;
  private base = "";
  private n = 0;

  constructor(
    private readonly host = "127.0.0.1",
    private readonly runId = Math.random().toString(36).slice(2, 10),
  ) {}

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const hit: CanaryHit = { at: new Date().toISOString(), method: req.method ?? "?", path: req.url ?? "" };
      if (req.headers["user-agent"]) hit.userAgent = req.headers["user-agent"];
      this.hits.push(hit);
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, this.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host = this.host.includes(":") ? `[${this.host}]` : this.host;
    this.base = `http://${host}:${port}/cap-canary/${this.runId}`;
    this.server = server;
  }

  /** A fresh canary URL; `label` says where it was planted (it shows up in the hit's path). */
  url(label: string): string {
    if (!this.base) throw new Error("canary not started");
    return `${this.base}/${encodeURIComponent(label)}/${++this.n}`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
