/**
 * The PostgreSQL store: the store contract (../contract.ts, semantics in ../README.md) on a `pg` Pool, for
 * several kernel replicas sharing one database. Opening it applies pending migrations (migrate.ts) into
 * its schema — `schema` sets the search_path of every connection, so tests isolate in a schema each — and
 * starts one LISTEN connection (listen.ts) that turns other replicas' NOTIFYs into `onEventsReady` calls.
 *
 * Must never: read the wall clock for data (services pass `now`), leave a transaction's client checked
 * out after the transaction settles, or call `onEventsReady` listeners for a write that did not commit.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Store, StoreOps } from "../contract.js";
import { ackBatcher, type HeldConnection } from "./ack-batcher.js";
import { agentOps } from "./agents.js";
import { AuthAnnouncer, listenerName } from "./auth-announce.js";
import { claimFloors } from "./claim-floors.js";
import { contentOps } from "./content.js";
import { type Db, type Row, runQuery, storeError } from "./db.js";
import type { WriteAcks } from "./events/settle.js";
import { eventOps } from "./events.js";
import { NotificationListener } from "./listen.js";
import { migrate, quoteIdent } from "./migrate.js";
import { peopleOps } from "./people.js";

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/db` */
  url: string;
  /**
   * Schema holding the tables (created if missing): this option, else `?schema=` on the URL, else `public`.
   * Letters, digits, `_`; ≤ 40 characters.
   */
  schema?: string;
  /** Pool size (connections for queries; the LISTEN connection is extra). Default 10. */
  poolSize?: number;
  /** Called with errors of idle pool clients and of the LISTEN connection (which reconnects). */
  onError?: (err: Error) => void;
  /** Milliseconds `ping()` waits before failing. Default 5000. */
  pingTimeoutMs?: number;
  /** Milliseconds a query waits for a pool connection (or a new one to open) before failing. Default 10000. */
  connectTimeoutMs?: number;
}

const INT8_OID = 20;

/** BIGINT epoch-ms columns and count(*) as numbers (exact below 2^53, which epoch ms and counts are). */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** The ops on `db`; acks one statement per call unless `acks` writes them (the pool's batcher). */
function buildOps(db: Db, acks?: WriteAcks): StoreOps {
  return {
    ...peopleOps(db),
    ...agentOps(db),
    ...eventOps(db, acks),
    ...contentOps(db),
  };
}

export interface PostgresStore extends Store {
  readonly kind: "postgres";
  readonly schema: string;
  /** The LISTEN connection (its `backendPid` is null while it reconnects); for health reporting and tests. */
  readonly listener: NotificationListener;
}

/** `?schema=NAME` on the URL (so `--db postgres://…?schema=cap` works) is taken out before pg sees it. */
function splitSchema(url: string): { url: string; schema: string | null } {
  if (!/[?&]schema=/.test(url)) return { url, schema: null };
  const u = new URL(url);
  const schema = u.searchParams.get("schema");
  u.searchParams.delete("schema");
  return { url: u.toString(), schema };
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const fromUrl = splitSchema(options.url);
  const schema = options.schema ?? fromUrl.schema ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(schema))
    throw new Error(`invalid PostgreSQL schema name: ${schema}`);
  const config: pg.ClientConfig = {
    connectionString: fromUrl.url,
    types,
    options: `-c search_path=${quoteIdent(schema)}`,
    application_name: "cap-kernel",
  };
  const setup = new pg.Client(config);
  setup.on("error", () => undefined);
  await setup.connect();
  try {
    await migrate(setup, schema, Date.now());
  } finally {
    await setup.end().catch(() => undefined);
  }

  const channel = `cap_events_ready:${schema}`;
  /** Prefix of our own NOTIFY payloads: the LISTEN side skips them (local listeners were woken directly). */
  const origin = `${randomBytes(6).toString("hex")}|`;
  const listeners = new Set<(agentId: string) => void>();
  const missedListeners = new Set<() => void>();
  // Every wake-up — an enqueue or requeue committed here, or another replica's NOTIFY — may announce a
  // pending event below the agent's claim floor, so it drops the floor first (claim-floors.ts).
  const floors = claimFloors();
  const emit = (agentIds: Iterable<string>) => {
    for (const id of new Set(agentIds)) {
      floors.drop(id);
      for (const l of listeners) {
        try {
          l(id);
        } catch {
          // a listener's failure is its own; the hint still reaches the others
        }
      }
    }
  };
  // Auth listeners run synchronously once the revoking write has committed (token caches must drop it
  // before the revoking request answers); other replicas hear it through the NOTIFY below.
  const authListeners = new Set<() => void>();
  const emitAuth = () => {
    for (const l of authListeners) {
      try {
        l();
      } catch {
        // a listener's failure is its own
      }
    }
  };
  // `announcer` is set right after the pool exists (below); makeDb only reads it when an op runs.
  let announcer!: AuthAnnouncer;
  /** Outside a transaction: the NOTIFY has committed; drop local caches, then wait for the replicas. */
  const settleNow = async (nonce: string) => {
    emitAuth();
    await announcer.settled(nonce);
  };
  const makeDb = (
    runner: pg.Pool | pg.PoolClient,
    wake: Db["wake"],
    live = () => true,
    onAuth: (nonce: string) => Promise<void> = settleNow,
  ): Db => {
    const query = <R extends Row>(text: string, values?: unknown[], name?: string) =>
      live()
        ? runQuery<R>(runner, text, values, name)
        : Promise.reject(new Error("transaction already finished: use the store, not tx"));
    return {
      channel,
      origin,
      floors,
      wake,
      query,
      async authChanged() {
        const { nonce, payload } = announcer.next();
        await query("SELECT pg_notify($1, $2)", [channel, payload], "cap_notify_auth");
        await onAuth(nonce);
      },
    };
  };

  const pool = new pg.Pool({
    ...config,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
  });
  pool.on("error", (err) => options.onError?.(err));
  announcer = new AuthAnnouncer(pool, channel, schema, origin, emitAuth);
  const listener = new NotificationListener({
    // Named so that a revoking replica can list the replicas it must hear an ack from.
    config: { ...config, application_name: listenerName(schema, origin) },
    channel,
    origin,
    onAgent: (id) => emit([id]),
    onControl: (message, from) => announcer.onControl(message, from),
    onReset: emitAuth,
    onReconnect: () => {
      floors.dropAll();
      for (const l of missedListeners) {
        try {
          l();
        } catch {
          // a listener's failure is its own
        }
      }
    },
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const pingTimeoutMs = options.pingTimeoutMs ?? 5000;
  const poolDb = makeDb(pool, emit);
  const holdAckConnection = async (): Promise<HeldConnection> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw storeError(err);
    }
    // As in a transaction: without a listener, the server going away while it is held would crash.
    let broken: Error | undefined;
    const onClientError = (err: Error) => {
      broken = err;
    };
    client.on("error", onClientError);
    return {
      db: makeDb(client, emit),
      release(err) {
        client.off("error", onClientError);
        client.release(err ?? broken);
      },
    };
  };

  const store: PostgresStore = {
    // Every data operation straight onto the pool: each statement is its own transaction; concurrent
    // acks share theirs (ack-batcher.ts).
    ...buildOps(poolDb, ackBatcher(holdAckConnection)),
    kind: "postgres",
    schema,
    listener,

    async transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw storeError(err);
      }
      const woken: string[] = [];
      const announced: string[] = [];
      let released = false;
      let open = true;
      let broken: Error | undefined;
      // A checked-out client has no error listener of the pool's: without this one, the server going away
      // between two statements of the transaction would be an unhandled 'error' event (a crash).
      const onClientError = (err: Error) => {
        broken = err;
      };
      client.on("error", onClientError);
      try {
        await client.query("BEGIN").catch((err: Error) => {
          broken = err;
          throw storeError(err);
        });
        const tx = buildOps(
          makeDb(
            client,
            (ids) => woken.push(...ids),
            () => open,
            async (nonce) => {
              announced.push(nonce);
            },
          ),
        );
        let result: T;
        try {
          result = await fn(tx);
        } catch (err) {
          open = false;
          await client.query("ROLLBACK").catch((e: Error) => {
            broken = e;
          });
          // A statement that failed because the connection broke aborts the transaction: nothing applied.
          throw storeError(err);
        }
        open = false;
        let tag: string;
        try {
          tag = (await client.query("COMMIT")).command;
        } catch (err) {
          broken = err as Error;
          // Outcome unknown to us only if the connection broke after COMMIT reached the server; either way
          // the transaction applied wholly or not at all.
          throw storeError(err);
        }
        // PostgreSQL answers COMMIT of a transaction that an error aborted (fn caught a failed statement and
        // resolved anyway) with a ROLLBACK: nothing was written, so the caller must not believe otherwise.
        if (tag === "ROLLBACK") throw new Error("transaction rolled back: a statement inside it failed");
        emit(woken);
        if (announced.length > 0) {
          emitAuth();
          // The connection is not needed while the other replicas drop their caches.
          released = true;
          client.off("error", onClientError);
          client.release();
          await Promise.all(announced.map((n) => announcer.settled(n)));
        }
        return result;
      } finally {
        open = false;
        client.off("error", onClientError);
        // A client whose ROLLBACK/COMMIT failed may be mid-transaction: destroy it rather than reuse it.
        if (!released) client.release(broken);
      }
    },

    onEventsReady(l) {
      listeners.add(l);
      return () => {
        listeners.delete(l);
      };
    },

    onAuthChanged(l) {
      authListeners.add(l);
      return () => {
        authListeners.delete(l);
      };
    },

    // While LISTEN is down, other replicas' revocations would go unheard: no caching then.
    authCacheSafe: () => listener.backendPid !== null,

    onWakeupsMissed(l) {
      missedListeners.add(l);
      return () => {
        missedListeners.delete(l);
      };
    },

    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("PostgreSQL did not answer in time")), pingTimeoutMs);
      });
      try {
        await Promise.race([pool.query("SELECT 1"), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      listeners.clear();
      authListeners.clear();
      missedListeners.clear();
      await listener.close();
      await pool.end();
    },
  };
  await listener.ready;
  return store;
}
