/**
 * The store's one dedicated LISTEN connection: receives "agent X may have ready events" from every
 * replica's NOTIFY and hands the agent id to the store's listeners. It reconnects on failure with capped
 * backoff; notifications sent while it is down are lost, which is acceptable because they are a latency
 * hint: after a reconnect `onReconnect` tells the wake hub to re-check every waiting poll, and the hub's
 * shared backstop covers anything else. A periodic `SELECT 1` on the connection notices a peer
 * that vanished without closing the socket (which would otherwise leave a deaf, "healthy" listener).
 *
 * The same channel carries the auth-change announcements of token caches (payloads starting with "!",
 * auth-announce.ts) and the cancels of events (`!cancel:`, cancel-announce.ts); a reconnect reports
 * onReset, since whatever was sent meanwhile is lost.
 *
 * Must never: throw into the process (an error on this connection only schedules a reconnect), or deliver
 * our own notifications (the store already woke local listeners after the commit; `origin` tells them apart).
 */
import pg from "pg";
import { CANCEL_PREFIX, parseCancel } from "./cancel-announce.js";
import { decodeText } from "./db.js";
import { quoteIdent } from "./migrate.js";

export interface ListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  /** Payload prefix of this store's own notifications (skipped). */
  origin: string;
  onAgent: (agentId: string) => void;
  /** Another replica cancelled this event (a `!cancel:` payload, cancel-announce.ts). */
  onCancel?: (agentId: string, eventId: string) => void;
  /** A payload starting with "!" from another replica (auth announcements, auth-announce.ts), and its sender's origin. */
  onControl?: (message: string, from: string) => void;
  /** Notifications may have been missed: the connection dropped, or listens again after a reconnect. */
  onReset?: () => void;
  onError?: (err: Error) => void;
  /**
   * Called each time the connection is LISTENing again after it was lost: NOTIFYs sent meanwhile went
   * nowhere, so whoever waits for them must re-check (the wake hub sweeps every waiting poll).
   */
  onReconnect?: () => void;
  /** First reconnect delay; doubles up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often the connection proves it is alive; it is replaced when a probe fails or takes longer. */
  heartbeatMs?: number;
}

export class NotificationListener {
  private client: pg.Client | null = null;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private backoff: number;
  /** True once a connection was lost, so the next successful LISTEN is a reconnect. */
  private lost = false;
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  /** Resolves once the first connection is listening (or fails, leaving reconnects scheduled). */
  readonly ready: Promise<void>;

  constructor(private readonly opts: ListenerOptions) {
    this.minBackoff = opts.minBackoffMs ?? 100;
    this.maxBackoff = opts.maxBackoffMs ?? 5000;
    this.backoff = this.minBackoff;
    this.ready = this.connect();
  }

  /** The server process id of the listening connection, null while reconnecting (health, tests). */
  backendPid: number | null = null;

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ ...this.opts.config, keepAlive: true });
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      if (this.client === client) {
        this.client = null;
        this.backendPid = null;
        this.stopHeartbeat();
      }
      client.removeAllListeners("notification");
      client.end().catch(() => undefined);
      this.opts.onReset?.();
      if (!this.closed) {
        this.lost = true;
        this.opts.onError?.(err);
        this.schedule();
      }
    };
    client.on("error", fail);
    client.on("end", () => fail(new Error("LISTEN connection ended")));
    client.on("notification", (msg) => this.deliver(msg.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.opts.channel)}`);
      const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0]?.pid as number;
      if (failed) return;
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.backendPid = pid;
      // Whatever was announced while we were not listening is lost: caches start over.
      this.opts.onReset?.();
      this.backoff = this.minBackoff;
      this.startHeartbeat(client, fail);
      if (this.lost) {
        this.lost = false;
        this.opts.onReconnect?.();
      }
    } catch (err) {
      fail(err as Error);
    }
  }

  private startHeartbeat(client: pg.Client, fail: (err: Error) => void): void {
    const every = this.opts.heartbeatMs ?? 10_000;
    let inFlight = false;
    this.heartbeat = setInterval(() => {
      if (inFlight) {
        fail(new Error("LISTEN connection did not answer its heartbeat"));
        return;
      }
      inFlight = true;
      client.query("SELECT 1").then(
        () => {
          inFlight = false;
        },
        (err: Error) => fail(err),
      );
    }, every);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.maxBackoff);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  private deliver(payload: string | undefined): void {
    if (!payload) return;
    const sep = payload.indexOf("|");
    if (sep < 0 || payload.slice(0, sep + 1) === this.opts.origin) return;
    const rest = payload.slice(sep + 1);
    // Agent ids never start with "!": such payloads are control messages, not wake-ups.
    if (rest.startsWith(CANCEL_PREFIX)) {
      const cancel = parseCancel(rest);
      if (cancel) this.opts.onCancel?.(decodeText(cancel.agentId), decodeText(cancel.eventId));
    } else if (rest.startsWith("!")) this.opts.onControl?.(rest, payload.slice(0, sep + 1));
    else this.opts.onAgent(decodeText(rest));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopHeartbeat();
    const client = this.client;
    this.client = null;
    this.backendPid = null;
    if (client) {
      client.removeAllListeners("end");
      client.removeAllListeners("notification");
      await client.end().catch(() => undefined);
    }
  }
}
