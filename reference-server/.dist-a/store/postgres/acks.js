import { encodeText, isOutage, json } from "./db.js";
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
  UPDATE events e SET state = 'acked', acked_at = t.n, result = t.r::json
    FROM json_to_recordset($1::json) AS t(a text, i text, r text, n bigint)
   WHERE e.id = ANY (ARRAY(SELECT x.i FROM json_to_recordset($1::json) AS x(i text)))
     AND e.id = t.i AND e.agent_id = t.a AND e.state <> 'acked'
  RETURNING e.agent_id, e.id`;
// Only for items the update did not change (acked before, unknown, or another agent's). Which agent an
// event belongs to never changes, so a later read answers as the update's own snapshot would have.
const OWNERS = "SELECT agent_id, id FROM events WHERE id = ANY($1::text[])";
// Keys of the caller's strings as given: an id made well-formed cannot name an event (the kernel makes
// every id, in ASCII), so such an item is not found either way.
const keyOf = (agentId, id) => `${agentId}\n${id}`;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const idText = (s) => encodeText(s).replace(LONE_SURROGATE, "\uFFFD");
/** Writes the calls in one statement; per call, per item in order: whether the event is the agent's. */
export async function writeAcks(db, calls) {
    // The first item of an (agent, id) carries its result: first ack wins, as for single acks, also
    // within one call and across calls.
    const first = new Map();
    for (const c of calls) {
        for (const item of c.items) {
            const key = keyOf(c.agentId, item.eventId);
            if (!first.has(key))
                first.set(key, { agentId: c.agentId, id: item.eventId, result: item.result, now: c.now });
        }
    }
    if (first.size === 0)
        return calls.map(() => []);
    const rows = [...first.values()];
    // Text inside the JSON gets the escaping every text parameter gets (db.ts); results stay verbatim.
    const input = rows.map((r) => ({
        a: idText(r.agentId),
        i: idText(r.id),
        r: r.result === null || r.result === undefined ? null : JSON.stringify(r.result),
        n: r.now,
    }));
    const acked = await db.query(ACK_ROWS, [json(input)], "cap_ack_rows");
    const own = new Set(acked.map((r) => keyOf(r.agent_id, r.id)));
    if (own.size < first.size) {
        const rest = rows.filter((r) => !own.has(keyOf(r.agentId, r.id))).map((r) => r.id);
        const owners = await db.query(OWNERS, [rest], "cap_ack_owners");
        for (const r of owners)
            own.add(keyOf(r.agent_id, r.id));
    }
    return calls.map((c) => c.items.map((item) => own.has(keyOf(c.agentId, item.eventId))));
}
/** One call in its own statement. */
export async function writeAck(db, call) {
    return (await writeAcks(db, [call]))[0] ?? [];
}
/** ackEvent and ackEvents over one way of writing a call. */
export function ackOps(write) {
    return {
        async ackEvent({ agentId, eventId, now, result }) {
            return (await write({ agentId, items: [{ eventId, result }], now }))[0] === true;
        },
        async ackEvents({ agentId, items, now }) {
            return items.length === 0 ? [] : write({ agentId, items, now });
        },
    };
}
/** Calls written together, one statement at a time; see the module comment. */
export function ackBatcher(hold, options = {}) {
    const maxItems = options.maxItems ?? 1000;
    let queue = [];
    let running = false;
    let scheduled = false;
    const take = () => {
        let items = 0;
        let n = 0;
        for (const w of queue) {
            if (n > 0 && items + w.call.items.length > maxItems)
                break;
            items += w.call.items.length;
            n++;
        }
        const batch = queue.slice(0, n);
        queue = queue.slice(n);
        return batch;
    };
    const send = (db, batch) => writeAcks(db, batch.map((w) => w.call)).then((found) => ({ found }), (error) => ({ error }));
    const alone = async (db, w) => {
        try {
            w.resolve(await writeAck(db, w.call));
        }
        catch (err) {
            w.reject(err);
        }
    };
    const run = async () => {
        scheduled = false;
        running = true;
        let conn;
        let next;
        while (next || queue.length > 0) {
            if (!next) {
                const batch = take();
                if (!conn) {
                    try {
                        conn = await hold();
                    }
                    catch (err) {
                        for (const w of batch)
                            w.reject(err);
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
                for (const [i, w] of batch.entries())
                    w.resolve(done.found[i] ?? []);
            }
            else if (batch.length === 1 || isOutage(done.error)) {
                // An outage fails every call as its own statement would have, and the connection is not reused.
                for (const w of batch)
                    w.reject(done.error);
                if (isOutage(done.error)) {
                    conn?.release(done.error instanceof Error ? done.error : new Error(String(done.error)));
                    conn = undefined;
                }
            }
            else {
                // Anything else (a deadlock with a concurrent batch ack, say) is one call's business, so each is
                // written again on its own.
                for (const w of batch)
                    await alone(db, w);
            }
        }
        conn?.release();
        running = false;
    };
    return (call) => new Promise((resolve, reject) => {
        queue.push({ call, resolve, reject });
        if (running || scheduled)
            return;
        scheduled = true;
        setImmediate(run);
    });
}
//# sourceMappingURL=acks.js.map