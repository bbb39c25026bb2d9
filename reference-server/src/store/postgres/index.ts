/**
 * The PostgreSQL store: the store contract (../contract.ts, semantics in ../README.md) on a `pg` Pool, for
 * several kernel replicas sharing one database. Opening it applies pending migrations (migrate.ts) into
 * its schema — `schema` sets the search_path of every connection, so tests isolate in a schema each —,
 * starts the change feed (changes.ts: one LISTEN connection for other replicas' announcements), builds the
 * plain store — one module per noun, each op a statement on the pool, transactions on one client
 * (transactions.ts) — and applies the accelerators (accelerators.ts) unless `accelerate` is false.
 *
 * Must never: read the wall clock for data (services pass `now`).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Store, StoreOps } from "../contract.js";
import { POSTGRES_ACCELERATORS } from "./accelerators.js";
import type { HeldConnection } from "./ack-batcher.js";
import { agentOps } from "./agents.js";
import { postgresChanges } from "./changes.js";
import { noFloors } from "./claim-floors.js";
import { contentOps } from "./content.js";
import { type Db, type Row, runQuery, storeError } from "./db.js";
import type { WriteAcks } from "./events/settle.js";
import { eventOps } from "./events.js";
import type { PostgresAccelerator, PostgresKit } from "./kit.js";
import type { NotificationListener } from "./listen.js";
import { migrate, quoteIdent } from "./migrate.js";
import { peopleOps } from "./people.js";
import { runTransaction } from "./transactions.js";

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
  /** False: the plain store, without the accelerators of accelerators.ts. Default true. */
  accelerate?: boolean;
  /** The accelerators to apply when `accelerate` is not false (default POSTGRES_ACCELERATORS): tests compose their own. */
  accelerators?: readonly PostgresAccelerator[];
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

  const pool = new pg.Pool({
    ...config,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
  });
  pool.on("error", (err) => options.onError?.(err));
  const kit: PostgresKit = { floors: noFloors(), acks: undefined, hold: () => holdConnection() };
  if (options.accelerate !== false)
    for (const a of options.accelerators ?? POSTGRES_ACCELERATORS) a.apply(kit);

  const channel = `cap_events_ready:${schema}`;
  /** Prefix of our own NOTIFY payloads: the LISTEN side skips them (local listeners were woken directly). */
  const origin = `${randomBytes(6).toString("hex")}|`;
  const changes = postgresChanges({
    pool,
    config,
    channel,
    schema,
    origin,
    // Every wake-up may announce a pending event below the agent's claim floor (claim-floors.ts).
    beforeReady: (id) => kit.floors.drop(id),
    beforeGap: () => kit.floors.dropAll(),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const makeDb = (
    runner: pg.Pool | pg.PoolClient,
    wake: Db["wake"],
    live = () => true,
    onAuth: (nonce: string) => Promise<void> = (nonce) => changes.authCommitted([nonce]),
    cancelled: Db["cancelled"] = (pairs) => changes.cancelled(pairs),
  ): Db => {
    const query = <R extends Row>(text: string, values?: unknown[], name?: string) =>
      live()
        ? runQuery<R>(runner, text, values, name)
        : Promise.reject(new Error("transaction already finished: use the store, not tx"));
    return {
      channel,
      origin,
      floors: kit.floors,
      wake,
      cancelled,
      query,
      async authChanged() {
        const { nonce, payload } = changes.nextAuth();
        await query("SELECT pg_notify($1, $2)", [channel, payload], "cap_notify_auth");
        await onAuth(nonce);
      },
    };
  };
  const holdConnection = async (): Promise<HeldConnection> => {
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
      db: makeDb(client, changes.ready),
      release(err) {
        client.off("error", onClientError);
        client.release(err ?? broken);
      },
    };
  };
  const pingTimeoutMs = options.pingTimeoutMs ?? 5000;

  const store: PostgresStore = {
    // Every data operation straight onto the pool: each statement is its own transaction.
    ...buildOps(makeDb(pool, changes.ready), kit.acks),
    kind: "postgres",
    schema,
    listener: changes.listener,
    changes: changes.feed,
    transaction: (fn) =>
      runTransaction(
        pool,
        changes,
        (client, wake, live, onAuth, cancelled) => buildOps(makeDb(client, wake, live, onAuth, cancelled)),
        fn,
      ),

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
      await changes.close();
      await pool.end();
    },
  };
  await changes.listener.ready;
  return store;
}
