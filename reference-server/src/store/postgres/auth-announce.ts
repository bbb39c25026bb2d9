/**
 * Auth-change announcements across PostgreSQL replicas, so a token cache (services/token-cache.ts) never
 * outlives a revocation: "revoked" must hold on the next request, on every replica.
 *
 * The revoking replica NOTIFYs `!auth:<nonce>` in the revoking transaction. Every other replica's LISTEN
 * connection drops its caches on receipt and answers `!ack:<nonce>`. The revoking replica then waits —
 * before its op resolves, so before the revoking HTTP request answers — until every replica listening on
 * this schema has acked (the listeners are found by their application_name in pg_stat_activity), or until
 * AUTH_CACHE_MAX_AGE_MS has passed, after which every entry cached before the commit has expired anyway.
 * A replica whose LISTEN connection is down does not cache at all (changes.ts, authTrusted), and one that
 * listens again drops its caches first (onReset), so a missed announcement is never trusted.
 *
 * Must never: resolve an announcement before the other replicas dropped their caches or the maximum age
 * has passed, or fail a revocation because an ack is missing (waiting is bounded).
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";

/** The longest a cached token look-up may be served: how long a revocation waits for a silent replica. */
export const AUTH_CACHE_MAX_AGE_MS = 5000;

const AUTH = "!auth:";
const ACK = "!ack:";

/** The application_name of a store's LISTEN connection: its schema and origin, found by revoking replicas. */
export function listenerName(schema: string, origin: string): string {
  return `cap-listen:${schema}:${origin}`;
}

export class AuthAnnouncer {
  private readonly waiting = new Map<string, { from: Set<string>; done: () => void }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly schema: string,
    private readonly origin: string,
    /** Drops this replica's caches (an `auth` change on the store's feed). */
    private readonly dropLocal: () => void,
  ) {}

  /** A fresh announcement: its nonce and the NOTIFY payload to send inside the revoking transaction. */
  next(): { nonce: string; payload: string } {
    const nonce = randomBytes(8).toString("hex");
    return { nonce, payload: `${this.origin}${AUTH}${nonce}` };
  }

  /** Called with each "!" message of another replica (listen.ts onControl). */
  onControl(message: string, from: string): void {
    if (message.startsWith(AUTH)) {
      this.dropLocal();
      const payload = `${this.origin}${ACK}${message.slice(AUTH.length)}`;
      this.pool.query("SELECT pg_notify($1, $2)", [this.channel, payload]).catch(() => undefined);
    } else if (message.startsWith(ACK)) {
      const w = this.waiting.get(message.slice(ACK.length));
      if (w) {
        w.from.add(from);
        w.done();
      }
    }
  }

  /** After the commit: resolves once every other listening replica acked `nonce`, or at the maximum age. */
  async settled(nonce: string): Promise<void> {
    const from = new Set<string>();
    let wake = () => {};
    this.waiting.set(nonce, { from, done: () => wake() });
    const deadline = performance.now() + AUTH_CACHE_MAX_AGE_MS;
    try {
      const prefix = `cap-listen:${this.schema}:`;
      const rows = (
        await this.pool.query<{ name: string }>(
          `SELECT application_name AS name FROM pg_stat_activity
            WHERE datname = current_database() AND left(application_name, $2) = $1`,
          [prefix, prefix.length],
        )
      ).rows;
      const others = new Set(rows.map((r) => r.name.slice(prefix.length)).filter((o) => o !== this.origin));
      while ([...others].some((o) => !from.has(o))) {
        const left = deadline - performance.now();
        if (left <= 0) return;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    } catch {
      // No list of replicas: wait out the maximum age instead, which is just as safe.
      const left = deadline - performance.now();
      if (left > 0) await new Promise((r) => setTimeout(r, left));
    } finally {
      this.waiting.delete(nonce);
    }
  }
}
