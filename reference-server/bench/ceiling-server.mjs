/**
 * The least queue that drains like the bench's drain scenario: a bare Fastify 5 app (no logger, no schema,
 * no auth beyond a token → agent map) with the three routes the drain drivers call — poll (claim 50, what
 * they ask for), ack one, ack many — over one table on SQLite (better-sqlite3, WAL, synchronous = NORMAL,
 * as the kernel runs it) or PostgreSQL (pg, default durability). A kernel does all of this and more
 * (tokens, validation, attempts, fencing, replay, wake-ups) on the same parts, so what this queue reaches
 * on a scenario is a ceiling for the kernel's figure there; `ceiling.mjs` drives it with the bench's own
 * drivers. Run in its own process:
 *
 *   node bench/ceiling-server.mjs PORT sqlite:FILE|postgres://… EVENTS [--ack-write each|shared]
 *
 * It loads EVENTS pending events (the bench's ~300-byte payloads, round-robin over agents `c-1`..`c-8`,
 * tokens `t-1`..`t-8`), then prints "ready PORT". `--ack-write shared` (PostgreSQL): one ack statement at a
 * time on a connection of its own, the acks that arrive meanwhile go together in the next, sent before the
 * answers of the one that returned (the kernel's way, ack-batcher.ts); `each` (default): each ack its own
 * statement on a pool of 10. Must never leave out what durability needs (every answer after its commit),
 * nor do more than the drain needs.
 */
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import Fastify from "fastify";
import { samplePayload } from "./fixture.mjs";

const require = createRequire(import.meta.url);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "ack-write": { type: "string", default: "each" } },
});
const [portArg, dbUrl, eventsArg] = positionals;
const AGENTS = 8;
const LEASE_MS = 300_000;
const agentOf = new Map(Array.from({ length: AGENTS }, (_, i) => [`Bearer t-${i + 1}`, `c-${i + 1}`]));

/** {claim(agent) (up to 50), ackOne(agent, id), ackMany(agent, ids), close()}; states 0 pending, 1 leased, 2 acked. */
async function sqliteQueue(file, count) {
  const Database = require("better-sqlite3");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE q (seq INTEGER PRIMARY KEY, agent TEXT NOT NULL, state INTEGER NOT NULL,
             attempts INTEGER NOT NULL DEFAULT 0, lease INTEGER, payload TEXT NOT NULL);
           CREATE INDEX q_pending ON q (agent, seq) WHERE state = 0;`);
  const insert = db.prepare("INSERT INTO q (agent, state, payload) VALUES (?, 0, ?)");
  db.transaction(() => {
    for (let n = 0; n < count; n++)
      insert.run(`c-${(n % AGENTS) + 1}`, JSON.stringify(samplePayload("pod_c", n)));
  })();
  const claim = db.prepare(`UPDATE q SET state = 1, attempts = attempts + 1, lease = ?
    WHERE seq IN (SELECT seq FROM q WHERE agent = ? AND state = 0 ORDER BY seq LIMIT 50)
    RETURNING seq, attempts, payload`);
  const ack = db.prepare("UPDATE q SET state = 2 WHERE seq = ? AND agent = ?");
  const ackMany = db.transaction((agent, ids) => ids.map((id) => ack.run(Number(id), agent).changes === 1));
  return {
    claim: async (agent) => claim.all(Date.now() + LEASE_MS, agent).sort((a, b) => a.seq - b.seq),
    ackOne: async (agent, id) => ack.run(Number(id), agent).changes === 1,
    ackMany: async (agent, ids) => ackMany(agent, ids),
    close: async () => db.close(),
  };
}

async function postgresQueue(url, count, ackWrite) {
  const pg = require("pg");
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(`CREATE TABLE q (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, agent TEXT COLLATE "C" NOT NULL,
      state SMALLINT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, lease BIGINT, payload JSON NOT NULL);
    CREATE INDEX q_pending ON q (agent, seq) WHERE state = 0;`);
  for (let done = 0; done < count; done += 1000) {
    const agents = [];
    const payloads = [];
    for (let n = done; n < Math.min(count, done + 1000); n++) {
      agents.push(`c-${(n % AGENTS) + 1}`);
      payloads.push(JSON.stringify(samplePayload("pod_c", n)));
    }
    await pool.query(
      "INSERT INTO q (agent, state, payload) SELECT a, 0, p FROM unnest($1::text[], $2::json[]) AS u(a, p)",
      [agents, payloads],
    );
  }
  await pool.query("ANALYZE q");
  // SKIP LOCKED as the kernel's claim: two claims never wait on each other's rows. The limit is written into
  // the text, as the kernel does (events.ts): as a parameter, the generic plan joined a sequential scan.
  const CLAIM = `UPDATE q SET state = 1, attempts = q.attempts + 1, lease = $2
    WHERE seq IN (SELECT seq FROM q WHERE agent = $1 AND state = 0 AND seq > $3 ORDER BY seq LIMIT 50 FOR UPDATE SKIP LOCKED)
    RETURNING seq, attempts, payload::text AS payload`;
  const ACK = "UPDATE q SET state = 2 WHERE seq = ANY($1::bigint[]) AND agent = $2 RETURNING seq";
  const ACK_SHARED = `UPDATE q SET state = 2 FROM unnest($1::bigint[], $2::text[]) AS t(seq, agent)
    WHERE q.seq = t.seq AND q.agent = t.agent RETURNING q.seq`;
  const ackMany = async (agent, ids) => {
    const { rows } = await pool.query({ name: "ack", text: ACK, values: [ids.map(Number), agent] });
    const done = new Set(rows.map((r) => String(r.seq)));
    return ids.map((id) => done.has(String(id)));
  };
  // One statement at a time on a connection of its own; what arrives meanwhile goes in the next one, sent
  // as soon as a statement returns and before its acks are answered (the kernel's order, ack-batcher.ts).
  const ackClient = ackWrite === "shared" ? await pool.connect() : null;
  let waiting = [];
  let running = false;
  const send = (batch) =>
    ackClient
      .query({
        name: "ack_shared",
        text: ACK_SHARED,
        values: [batch.map((w) => Number(w.id)), batch.map((w) => w.agent)],
      })
      .then(
        ({ rows }) => ({ done: new Set(rows.map((r) => String(r.seq))) }),
        (error) => ({ error }),
      );
  const shared = async () => {
    running = true;
    let batch = waiting;
    waiting = [];
    let pending = send(batch);
    while (pending) {
      const outcome = await pending;
      const answered = batch;
      batch = waiting;
      waiting = [];
      pending = batch.length > 0 ? send(batch) : null;
      for (const w of answered) {
        if (outcome.error) w.reject(outcome.error);
        else w.resolve(outcome.done.has(String(w.id)));
      }
    }
    running = false;
  };
  // Each agent's claims start after the last seq it claimed (the kernel keeps such a floor, claim-floors.ts):
  // from the start of the index, a claim walks the entries of every row claimed before, still there until
  // a vacuum, and the drain slows down as it goes. Nothing is released in the drain, so nothing falls below.
  const floors = new Map();
  return {
    claim: async (agent) => {
      const { rows } = await pool.query({
        name: "claim",
        text: CLAIM,
        values: [agent, Date.now() + LEASE_MS, floors.get(agent) ?? 0],
      });
      rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      if (rows.length > 0) floors.set(agent, Number(rows.at(-1).seq));
      return rows;
    },
    ackOne:
      ackWrite === "shared"
        ? (agent, id) =>
            new Promise((resolve, reject) => {
              waiting.push({ agent, id, resolve, reject });
              if (!running) void shared();
            })
        : async (agent, id) => (await ackMany(agent, [id]))[0],
    ackMany,
    close: async () => {
      ackClient?.release();
      await pool.end();
    },
  };
}

const count = Number(eventsArg);
const queue = dbUrl.startsWith("sqlite:")
  ? await sqliteQueue(dbUrl.slice("sqlite:".length), count)
  : await postgresQueue(dbUrl, count, values["ack-write"]);

const app = Fastify({ logger: false });
const agent = (req, reply) => {
  const a = agentOf.get(req.headers.authorization);
  if (!a) reply.code(401).send({ code: "unauthorized" });
  return a;
};
app.get(`${CAP_BASE_PATH}/events`, async (req, reply) => {
  const a = agent(req, reply);
  if (!a) return reply;
  const rows = await queue.claim(a); // 50, what the drain drivers ask for
  // The stored payload text goes out as it is, as the kernel's answer does.
  const events = rows.map((r) => `{"id":"${r.seq}","attempts":${r.attempts},"payload":${r.payload}}`);
  return reply.type("application/json").send(`{"events":[${events.join(",")}]}`);
});
app.post(`${CAP_BASE_PATH}/events/:id/ack`, async (req, reply) => {
  const a = agent(req, reply);
  if (!a) return reply;
  return (await queue.ackOne(a, req.params.id))
    ? { ok: true }
    : reply.code(404).send({ code: "event_not_found" });
});
app.post(`${CAP_BASE_PATH}/events/ack`, async (req, reply) => {
  const a = agent(req, reply);
  if (!a) return reply;
  const ids = req.body.acks.map((x) => x.id);
  const ok = await queue.ackMany(a, ids);
  return {
    results: ids.map((id, i) => (ok[i] ? { id, ok: true } : { id, ok: false, code: "event_not_found" })),
  };
});
await app.listen({ host: "127.0.0.1", port: Number(portArg) });
process.stdout.write(`ready ${app.server.address().port}\n`);
process.on("SIGTERM", () =>
  app
    .close()
    .then(() => queue.close())
    .then(() => process.exit(0)),
);
