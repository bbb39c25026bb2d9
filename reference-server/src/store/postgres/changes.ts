/**
 * The PostgreSQL store's change feed (../contract.ts, StoreChanges), across replicas: this store's own
 * commits are announced to it at once, other replicas' through the one LISTEN connection (listen.ts) —
 * enqueues, requeues and cancels NOTIFY in their own statement; auth changes NOTIFY and wait for every listening
 * replica's ack (auth-announce.ts). A LISTEN connection that dropped may have missed anything: it is
 * announced as `auth` at once and as a `gap` when it listens again.
 *
 * Must never: announce a write that did not commit, or report authTrusted while the LISTEN connection is
 * down (another replica's revocation would go unheard).
 */
import type pg from "pg";
import { ChangeFeed } from "../change-feed.js";
import { AUTH_CACHE_MAX_AGE_MS, AuthAnnouncer, listenerName } from "./auth-announce.js";
import { NotificationListener } from "./listen.js";

export interface PostgresChangesOptions {
  pool: pg.Pool;
  config: pg.ClientConfig;
  channel: string;
  schema: string;
  /** Prefix of this store's own NOTIFY payloads: the LISTEN side skips them. */
  origin: string;
  /** An agent was announced ready, by this store or another replica (its claim floor must go first). */
  beforeReady?: (agentId: string) => void;
  /** Announcements may have been lost (the LISTEN connection is back). */
  beforeGap?: () => void;
  onError?: (err: Error) => void;
}

export type PostgresChanges = ReturnType<typeof postgresChanges>;

export function postgresChanges(o: PostgresChangesOptions) {
  // Set right below: the feed reads it only when asked.
  let listener!: NotificationListener;
  const feed = new ChangeFeed({
    authTrusted: () => listener.backendPid !== null,
    authMaxAgeMs: AUTH_CACHE_MAX_AGE_MS,
    // Other replicas' commits are heard only as hints: the long-poll backstop sweeps always.
    readyComplete: () => false,
    // Every cancel NOTIFYs at its commit: while the LISTEN connection is up none goes unheard, and one
    // that comes back announces a gap (the watches are re-checked then).
    cancelComplete: () => listener.backendPid !== null,
  });
  const ready = (agentIds: Iterable<string>) => {
    for (const id of new Set(agentIds)) {
      o.beforeReady?.(id);
      feed.ready(id);
    }
  };
  const announcer = new AuthAnnouncer(o.pool, o.channel, o.schema, o.origin, () => feed.auth());
  listener = new NotificationListener({
    // Named so that a revoking replica can list the replicas it must hear an ack from.
    config: { ...o.config, application_name: listenerName(o.schema, o.origin) },
    channel: o.channel,
    origin: o.origin,
    onAgent: (id) => ready([id]),
    onCancel: (agentId, eventId) => feed.cancel(agentId, eventId),
    onControl: (message, from) => announcer.onControl(message, from),
    onReset: () => feed.auth(),
    onReconnect: () => {
      o.beforeGap?.();
      feed.gap();
    },
    ...(o.onError ? { onError: o.onError } : {}),
  });
  return {
    feed,
    listener,
    /** These agents may have ready events: a write of this store committed. */
    ready,
    /** These events were cancelled: a write of this store committed (other replicas hear its NOTIFY). */
    cancelled(pairs: Iterable<{ agentId: string; eventId: string }>) {
      for (const p of pairs) feed.cancel(p.agentId, p.eventId);
    },
    /** A fresh auth announcement: its nonce and the payload to NOTIFY inside the writing transaction. */
    nextAuth: () => announcer.next(),
    /** The write carrying `nonce` committed: drop this replica's caches, then wait for the others'. */
    async authCommitted(nonces: string[]): Promise<void> {
      if (nonces.length === 0) return;
      feed.auth();
      await Promise.all(nonces.map((n) => announcer.settled(n)));
    },
    async close(): Promise<void> {
      feed.close();
      await listener.close();
    },
  };
}
