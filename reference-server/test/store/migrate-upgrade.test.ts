/**
 * Upgrading a database in place: one at the previous schema version (built by applying the migrations
 * before the newest ones), with a row in every table, is opened by the store, which migrates it; every
 * row is then found through the store — renamed and rebuilt tables included, insertion order kept.
 * SQLite from 004 (before 005-aligned-names, 006-pending-index, 007-pod-index-on-payloads,
 * 008-identity-owners and 009-poll-by-lease), PostgreSQL from 003 (before 004-event-payloads,
 * 005-aligned-names, 006-byte-order-ids, 007-pending-index, 008-pod-index-on-payloads, 009-identity-owners
 * and 010-poll-tagged-rows); then a poll with a pollId claims, and its repeat replays, on the new schema.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { EventRecord, Store, UserRecord } from "../../src/store/contract.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { loadMigrations, migrate as migratePostgres, quoteIdent } from "../../src/store/postgres/migrate.js";
import type { Dialect } from "../../src/store/rows.js";
import * as S from "../../src/store/schema.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { T0 } from "./contract-fixtures.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

const users: UserRecord[] = ["usr_a", "usr_b", "usr_c"].map((id, i) => ({
  id,
  name: `user ${i}`,
  isAdmin: i === 0,
  createdAt: T0,
  deletedAt: i === 2 ? T0 + 5 : null,
}));
const userToken = {
  id: "utk_a",
  userId: "usr_a",
  hash: "a".repeat(64),
  label: "ci",
  createdAt: T0,
  revokedAt: null,
};
const pod = { id: "pod_a", name: "pod", createdBy: "usr_a", createdAt: T0 };
const members = [
  { podId: "pod_a", userId: "usr_b", role: "member" as const, addedAt: T0 },
  { podId: "pod_a", userId: "usr_a", role: "admin" as const, addedAt: T0 },
];
const registry = ["zeta", "alpha"].map((name) => ({
  name,
  manifest: { name, version: "1.0.0", nested: { keep: [1, "two"] } },
  publishedBy: "usr_a",
  createdAt: T0,
  updatedAt: T0 + 1,
}));
/** Inserted without owner_id (the old schemas have none); 008/009-identity-owners make its first installer its owner. */
const identity = { id: "agt_a", agentName: "zeta", instanceId: "default", ownerId: "usr_a", createdAt: T0 };
/** Columns the old schemas do not have yet, left out of the rows inserted before migrating. */
/**
 * Columns later migrations added (cancel, double texting: SQLite 010, PostgreSQL 011; trace context: SQLite
 * 011, PostgreSQL 012).
 */
const TRACE_COLUMNS = ["traceparent", "tracestate"];
const CANCEL_COLUMNS = [
  "cancel_reason",
  "cancelled_at",
  "cancelled_by_kind",
  "cancelled_by_id",
  "cancelled_attempts",
  "supersedes",
  ...TRACE_COLUMNS,
];
const added = (t: S.Table): string[] =>
  t === S.EVENTS
    ? [...S.EVENT_PAYLOAD_COLUMNS, ...CANCEL_COLUMNS]
    : t === S.AGENT_IDENTITIES
      ? ["owner_id"]
      : t === S.INSTALLATIONS
        ? ["double_texting"]
        : t === S.MESSAGES
          ? TRACE_COLUMNS
          : [];
const installation = {
  id: "ins_a",
  agentId: "agt_a",
  agentName: "zeta",
  instanceId: "default",
  podId: "pod_a",
  scopes: ["messages:write"],
  messagePosted: false,
  // Not in the old row: the migration's default.
  doubleTexting: "enqueue" as const,
  installedBy: { kind: "human" as const, id: "usr_a" },
  authorizedBy: "usr_a",
  status: "active" as const,
  createdAt: T0,
  uninstalledAt: null,
  uninstalledBy: null,
};
const runtimeToken = {
  id: "rtk_a",
  hash: "b".repeat(64),
  agentId: "agt_a",
  installationId: "ins_a",
  podId: "pod_a",
  issuedBy: "usr_a",
  label: null,
  createdAt: T0,
  lastUsedAt: T0 + 2,
  revokedAt: null,
};
const baseEvent = {
  agentId: "agt_a",
  podId: "pod_a",
  type: "message.posted",
  attemptBase: 0,
  createdAt: T0,
  leaseExpiresAt: null,
  ackedAt: null,
  result: null,
  failedAt: null,
  failReason: null,
  releasedAttempts: null,
  releaseReason: null,
  availableAt: null,
  cancelReason: null,
  cancelledAt: null,
  cancelledByKind: null,
  cancelledById: null,
  cancelledAttempts: null,
  supersedes: null,
  traceparent: null,
  tracestate: null,
};
const events: EventRecord[] = [
  { ...baseEvent, id: "evt_1", payload: { n: 1, text: "first" }, state: "pending", attempts: 0 },
  {
    ...baseEvent,
    id: "evt_2",
    payload: { n: 2 },
    state: "acked",
    attempts: 1,
    ackedAt: T0 + 3,
    result: { ok: 1 },
  },
];
const message = {
  id: "msg_a",
  podId: "pod_a",
  content: "hello",
  author: { kind: "agent" as const, id: "agt_a", name: "zeta" },
  replyToMessageId: null,
  metadata: { k: "v" },
  createdAt: T0,
  traceparent: null,
  tracestate: null,
};
const memory = {
  agentId: "agt_a",
  content: "notes",
  sections: { a: "b" },
  sourceRuntime: null,
  syncKey: "k1",
  updatedAt: T0,
};
const idempotency = {
  agentId: "agt_a",
  key: "key-1",
  requestHash: "c".repeat(64),
  podId: "pod_a",
  status: 201,
  body: { id: "msg_a" },
  createdAt: T0,
};
const decision = {
  id: "dec_a",
  podId: "pod_a",
  agentId: "agt_a",
  messageId: "msg_a",
  decisionClass: "strategy" as const,
  title: "t",
  question: "q?",
  options: ["yes", "no"],
  threadRootId: null,
  context: "ctx",
  createdAt: T0,
  answeredAt: null,
  answeredBy: null,
  answerOption: null,
  answerMessageId: null,
};
const joinCode = {
  id: "jc_a",
  hash: "d".repeat(64),
  podId: "pod_a",
  agentName: null,
  scopes: ["messages:read"],
  createdBy: "usr_a",
  createdAt: T0,
  expiresAt: T0 + 1000,
  usedAt: null,
  usedByInstallationId: null,
};

/** Every row to write at the old version, by the row table it belongs to. */
const ROWS: [S.Table, object[]][] = [
  [S.USERS, users],
  [S.USER_TOKENS, [userToken]],
  [S.PODS, [pod]],
  [S.MEMBERS, members],
  [S.REGISTRY_AGENTS, registry],
  [S.AGENT_IDENTITIES, [identity]],
  [S.INSTALLATIONS, [installation]],
  [S.RUNTIME_TOKENS, [runtimeToken]],
  [S.EVENTS, events],
  [S.MESSAGES, [message]],
  [S.MEMORY, [memory]],
  [S.IDEMPOTENCY_RECORDS, [idempotency]],
  [S.DECISIONS, [decision]],
  [S.JOIN_CODES, [joinCode]],
];

/** The stored values of a record's columns (old and new versions store them alike). */
function values(t: S.Table, record: object, dialect: Dialect, except: readonly string[] = []): unknown[] {
  return t.columns
    .filter((c) => !except.includes(c.name))
    .map((c) => {
      const v = c.field.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], record);
      if (c.kind === "json") return v === null ? null : JSON.stringify(v);
      if (c.kind === "bool" && dialect === "sqlite") return v ? 1 : 0;
      return v;
    });
}

/** What the migrated store must give back: every row, through the contract. */
async function expectEveryRow(store: Store): Promise<void> {
  expect(await store.listUsers()).toEqual(users);
  expect(await store.findUserTokenByHash(userToken.hash)).toEqual({ token: userToken, user: users[0] });
  expect(await store.getPod(pod.id)).toEqual(pod);
  expect(await store.listMembers(pod.id)).toEqual(members);
  expect(await store.listPods({ userId: "usr_b" })).toEqual([pod]);
  for (const a of registry) expect(await store.getRegistryAgent(a.name)).toEqual(a);
  expect(await store.getAgentIdentity(identity.id)).toEqual(identity);
  expect(await store.findRuntimeTokenByHash(runtimeToken.hash)).toEqual({
    token: runtimeToken,
    identity,
    installation,
    issuer: users[0],
  });
  expect(await store.getEvent("evt_2")).toEqual(events[1]);
  // The pod's listing reads its index on event_payloads, filled from events by the migration.
  expect(await store.listPodEvents({ podId: pod.id, limit: 10 })).toEqual([events[1], events[0]]);
  const claimed = await store.claimEvents({
    agentId: "agt_a",
    limit: 10,
    leaseMs: 1000,
    maxAttempts: 3,
    now: T0 + 10,
    pollId: "poll-after-upgrade",
  });
  const { payload, ...first } = events[0]!;
  expect(claimed.events).toEqual([
    {
      ...first,
      payloadJson: JSON.stringify(payload),
      state: "leased",
      attempts: 1,
      leaseExpiresAt: T0 + 1010,
    },
  ]);
  const again = { agentId: "agt_a", limit: 10, leaseMs: 1000, maxAttempts: 3, now: T0 + 20 };
  expect(await store.claimEvents({ ...again, pollId: "poll-after-upgrade" })).toEqual({
    ...claimed,
    expiredLeases: 0,
    newlyFailed: 0,
  });
  expect(await store.getMessage(message.id)).toEqual(message);
  expect(await store.getMemory(memory.agentId)).toEqual(memory);
  expect(await store.getIdempotencyRecord(idempotency.agentId, idempotency.key)).toEqual(idempotency);
  expect(await store.getDecision(decision.id)).toEqual(decision);
  expect(await store.findJoinCodeByHash(joinCode.hash)).toEqual(joinCode);
  // New rows still go after the old ones (seq carried over).
  await store.insertUser({ ...(users[0] as UserRecord), id: "usr_d", name: "late" });
  expect((await store.listUsers()).map((u) => u.id)).toEqual(["usr_a", "usr_b", "usr_c", "usr_d"]);
  await store.putMember({ podId: pod.id, userId: "usr_d", role: "member", addedAt: T0 });
  expect((await store.listMembers(pod.id)).map((m) => m.userId)).toEqual(["usr_b", "usr_a", "usr_d"]);
}

describe("sqlite store upgrade from schema 004", () => {
  it("migrates a database with a row in every table and finds every row", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-upgrade-"));
    const path = join(dir, "k.db");
    try {
      const old = new Database(path);
      old.exec("CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
      const migrations = new URL("../../src/store/sqlite/migrations/", import.meta.url);
      const versions = readdirSync(migrations)
        .filter((f) => f.endsWith(".sql"))
        .sort()
        .map((f) => f.replace(/\.sql$/, ""));
      expect(versions.slice(-8)).toEqual([
        "005-aligned-names",
        "006-pending-index",
        "007-pod-index-on-payloads",
        "008-identity-owners",
        "009-poll-by-lease",
        "010-cancel",
        "011-trace-context",
        "012-event-history",
      ]);
      for (const v of versions.slice(0, versions.indexOf("005-aligned-names"))) {
        old.exec(readFileSync(new URL(`${v}.sql`, migrations), "utf8"));
        old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(v);
      }
      for (const [t, rows] of ROWS) {
        const name = t === S.MEMBERS ? "pod_members" : t.name;
        const except = added(t);
        const cols = t.columns.map((c) => c.name).filter((c) => !except.includes(c));
        const insert = old.prepare(
          `INSERT INTO ${name} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
        );
        for (const r of rows) {
          const { lastInsertRowid } = insert.run(...values(t, r, "sqlite", except));
          if (t === S.EVENTS)
            old
              .prepare("INSERT INTO event_payloads (seq, payload) VALUES (?, ?)")
              .run(lastInsertRowid, JSON.stringify((r as EventRecord).payload));
        }
      }
      old.close();

      const store = openSqliteStore({ path });
      try {
        await expectEveryRow(store);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!url)(`postgres store upgrade from schema 003${skipped}`, () => {
  const schema = `cap_upgrade_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: url });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client.end();
  });

  it("migrates a schema with a row in every table and finds every row", async () => {
    await client.connect();
    const all = loadMigrations();
    expect(all.map((m) => m.name).slice(3)).toEqual([
      "event-payloads",
      "aligned-names",
      "byte-order-ids",
      "pending-index",
      "pod-index-on-payloads",
      "identity-owners",
      "poll-tagged-rows",
      "cancel",
      "trace-context",
      "event-history",
    ]);
    await migratePostgres(client, schema, 0, all.slice(0, 3));
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    for (const [t, rows] of ROWS) {
      const except = t === S.EVENTS ? CANCEL_COLUMNS : added(t);
      const kept = t.columns.filter((c) => !except.includes(c.name));
      const cols = kept.map((c) => c.name);
      const params = kept.map((c, i) => `$${i + 1}${c.kind === "json" ? "::json" : ""}`);
      for (const r of rows)
        await client.query(
          `INSERT INTO ${t.name} (${cols.join(", ")}) VALUES (${params.join(", ")})`,
          values(t, r, "postgres", except),
        );
    }
    await client.query("RESET search_path");

    const store = await openPostgresStore({ url: url!, schema, poolSize: 2 });
    try {
      await expectEveryRow(store);
    } finally {
      await store.close();
    }
  });
});
