/**
 * Acks on PostgreSQL: the single ack and the batch ack are one write (`ACK_ROWS`) over a list of calls, and
 * outside a transaction the acks of concurrent requests share that write (`ackBatcher`).
 *
 * Why share: the one-ack drain spent most of PostgreSQL's time per event on the statement and its commit
 * (executor start-up, the WAL flush and its `fdatasync`), not on the row. One statement runs at a time;
 * calls that arrive meanwhile wait for it and go together in the next, so under load one commit carries
 * the acks of every driver, and an ack that finds nothing running is written in the check phase of its
 * event-loop turn (the requests read in that turn join it). Measured on the drain, a second statement in
 * flight halved the batches and cost more than the wait it saved. A call's items stay in one statement,
 * so a batch ack still settles all of its items or none.
 *
 * Why the next statement goes out before the answers: the drain is bound by the statement's round trip,
 * and answering first put every answer's HTTP write (and the pool's tick for a client) between one commit
 * and the next statement. The batcher keeps one pool client while its queue is not empty and sends the
 * waiting calls on it as soon as a statement returns; measured on the one-ack drain, 1.144 × the events/s
 * (`bench/ab-drain.mjs --store postgres --ack each`, 8 alternating slices of 4,000).
 *
 * Must never: answer a call before the statement carrying it has committed, let one call's failure decide
 * another's answer (a shared statement that fails for a reason other than an outage is written again
 * call by call; an outage fails each call, as its own statement would have), or settle part of a call.
 */
import type { StoreOps } from "../contract.js";
import type { Db } from "./db.js";
import { encodeText, isOutage, json } from "./db.js";
import { ACK, UNACKED } from "./lease-rules.js";

export interface AckCall {
  agentId: string;
  items: { eventId: string; result: unknown }[];
  now: number;
}

// $1: the items as a JSON array of {a: agent, i: id, r: result, n: now}, each (agent, id) once (writeAcks
// keeps the first). One JSON parameter rather than arrays: PostgreSQL sizes an array parameter's unnest
// by its length, so every execution of a prepared statement over arrays was planned anew (a fifth of
// PostgreSQL's time in the one-ack drain); json_to_recordset is sized the same whatever the input, so the
// prepared statement settles on its generic plan. json_to_recordset decodes every string of its input, and
// refuses a lone surrogate escape (`\ud800`), which JSON.parse lets through and a `json` value holds: so
// each result travels as the text of its JSON (cast back with ::json, stored verbatim as before) and ids
// are made well-formed, as the UTF-8 encoding of a text parameter makes them (U+FFFD).
// The ids also go in as `id = ANY(ARRAY(…))`, an index condition on events_pkey whatever the table's size.
// Joined to json_to_recordset alone (which PostgreSQL guesses at 100 rows), the generic plan hashed a
// sequential scan of every open event up to some 20,000 rows (`EXPLAIN` with force_generic_plan), and a
// connection keeps the plan it made while the table was small until the next ANALYZE: at 18,000 events
// each one-ack statement read the whole table (10 ms) where the index lookup takes 0.1 ms.
export const ACK_ROWS = `
  UPDATE events e SET ${ACK("t.n", "t.r::json")}
    FROM json_to_recordset($1::json) AS t(a text, i text, r text, n bigint)
   WHERE e.id = ANY (ARRAY(SELECT x.i FROM json_to_recordset($1::json) AS x(i text)))
     AND e.id = t.i AND e.agent_id = t.a AND e.${UNACKED}
  RETURNING e.agent_id, e.id`;

// Only for items the update did not change (acked before, unknown, or another agent's). Which agent an
// event belongs to never changes, so a later read answers as the update's own snapshot would have.
const OWNERS = "SELECT agent_id, id FROM events WHERE id = ANY($1::text[])";

// Keys of the caller's strings as given: an id made well-formed cannot name an event (the kernel makes
// every id, in ASCII), so such an item is not found either way.
const keyOf = (agentId: string, id: string) => `${agentId}\n${id}`;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const idText = (s: string) => encodeText(s).replace(LONE_SURROGATE, "\uFFFD");

/** Writes the calls in one statement; per call, per item in order: whether the event is the agent's. */
export async function writeAcks(db: Db, calls: AckCall[]): Promise<boolean[][]> {
  // The first item of an (agent, id) carries its result: first ack wins, as for single acks, also
  // within one call and across calls.
  const first = new Map<string, { agentId: string; id: string; result: unknown; now: number }>();
  for (const c of calls) {
    for (const item of c.items) {
      const key = keyOf(c.agentId, item.eventId);
      if (!first.has(key))
        first.set(key, { agentId: c.agentId, id: item.eventId, result: item.result, now: c.now });
    }
  }
  if (first.size === 0) return calls.map(() => []);
  const rows = [...first.values()];
  // Text inside the JSON gets the escaping every text parameter gets (db.ts); results stay verbatim.
  const input = rows.map((r) => ({
    a: idText(r.agentId),
    i: idText(r.id),
    r: r.result === null || r.result === undefined ? null : JSON.stringify(r.result),
    n: r.now,
  }));
  const acked = await db.query<{ agent_id: string; id: string }>(ACK_ROWS, [json(input)], "cap_ack_rows");
  const own = new Set(acked.map((r) => keyOf(r.agent_id, r.id)));
  if (own.size < first.size) {
    const rest = rows.filter((r) => !own.has(keyOf(r.agentId, r.id))).map((r) => r.id);
    const owners = await db.query<{ agent_id: string; id: string }>(OWNERS, [rest], "cap_ack_owners");
    for (const r of owners) own.add(keyOf(r.agent_id, r.id));
  }
  return calls.map((c) => c.items.map((item) => own.has(keyOf(c.agentId, item.eventId))));
}

/** One call in its own statement. */
export async function writeAck(db: Db, call: AckCall): Promise<boolean[]> {
  return (await writeAcks(db, [call]))[0] ?? [];
}

type Write = (call: AckCall) => Promise<boolean[]>;

/** ackEvent and ackEvents over one way of writing a call. */
export function ackOps(write: Write): Pick<StoreOps, "ackEvent" | "ackEvents"> {
  return {
    async ackEvent({ agentId, eventId, now, result }) {
      return (await write({ agentId, items: [{ eventId, result }], now }))[0] === true;
    },
    async ackEvents({ agentId, items, now }) {
      return items.length === 0 ? [] : write({ agentId, items, now });
    },
  };
}

interface Waiting {
  call: AckCall;
  resolve: (found: boolean[]) => void;
  reject: (err: unknown) => void;
}

/**
 * A connection the batcher keeps while it has calls to write, given back when its queue is empty. A held
 * pool client sends a statement at once, where the pool's own `query` first waits a tick for a client,
 * after the answers of the statement before had been written to their HTTP sockets.
 */
export interface HeldConnection {
  db: Db;
  /** Gives the connection back; with an error (an outage met on it), it is closed instead of reused. */
  release(err?: Error): void;
}

export interface AckBatcherOptions {
  /** Most items in one statement (whole calls only; a larger call goes alone). Default 1000. */
  maxItems?: number;
}

type Outcome = { found: boolean[][] } | { error: unknown };

/** Calls written together, one statement at a time; see the module comment. */
export function ackBatcher(hold: () => Promise<HeldConnection>, options: AckBatcherOptions = {}): Write {
  const maxItems = options.maxItems ?? 1000;
  let queue: Waiting[] = [];
  let running = false;
  let scheduled = false;

  const take = (): Waiting[] => {
    let items = 0;
    let n = 0;
    for (const w of queue) {
      if (n > 0 && items + w.call.items.length > maxItems) break;
      items += w.call.items.length;
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    return batch;
  };

  const send = (db: Db, batch: Waiting[]): Promise<Outcome> =>
    writeAcks(
      db,
      batch.map((w) => w.call),
    ).then(
      (found) => ({ found }),
      (error: unknown) => ({ error }),
    );

  const alone = async (db: Db, w: Waiting) => {
    try {
      w.resolve(await writeAck(db, w.call));
    } catch (err) {
      w.reject(err);
    }
  };

  const run = async () => {
    scheduled = false;
    running = true;
    let conn: HeldConnection | undefined;
    let next: { batch: Waiting[]; db: Db; outcome: Promise<Outcome> } | undefined;
    while (next || queue.length > 0) {
      if (!next) {
        const batch = take();
        if (!conn) {
          try {
            conn = await hold();
          } catch (err) {
            for (const w of batch) w.reject(err);
            continue;
          }
        }
        next = { batch, db: conn.db, outcome: send(conn.db, batch) };
      }
      const { batch, db, outcome } = next;
      next = undefined;
      const done = await outcome;
      if ("found" in done) {
        // The calls that came in meanwhile go to PostgreSQL before these answers go to their sockets.
        if (queue.length > 0) {
          const following = take();
          next = { batch: following, db, outcome: send(db, following) };
        }
        for (const [i, w] of batch.entries()) w.resolve(done.found[i] ?? []);
      } else if (batch.length === 1 || isOutage(done.error)) {
        // An outage fails every call as its own statement would have, and the connection is not reused.
        for (const w of batch) w.reject(done.error);
        if (isOutage(done.error)) {
          conn?.release(done.error instanceof Error ? done.error : new Error(String(done.error)));
          conn = undefined;
        }
      } else {
        // Anything else (a deadlock with a concurrent batch ack, say) is one call's business, so each is
        // written again on its own.
        for (const w of batch) await alone(db, w);
      }
    }
    conn?.release();
    running = false;
  };

  return (call) =>
    new Promise<boolean[]>((resolve, reject) => {
      queue.push({ call, resolve, reject });
      if (running || scheduled) return;
      scheduled = true;
      setImmediate(run);
    });
}
