/**
 * Minimal CAP drivers for the bench, speaking the six-route surface over HTTP with the load generator's
 * client: a drain driver (long-poll, ack every event; optionally each poll named by a fresh `pollId`, as
 * the SDK polls) and a conversational driver (answer each mention by mentioning the next agent, then
 * ack). Like a real driver each one works sequentially on its own keep-alive connection. Must never loop
 * unbounded: every loop checks a deadline and a count.
 */
import { randomUUID } from "node:crypto";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { createClient } from "./load.mjs";

export const BASE = CAP_BASE_PATH;
const ACK_BODY = { result: { outcome: "no_action" } };

export function agentClient(baseUrl, token) {
  const client = createClient(baseUrl);
  const headers = { authorization: `Bearer ${token}` };
  const call = async (method, path, body, expect) => {
    const r = await client.request(method, `${BASE}${path}`, { body, headers });
    if (r.status !== expect) {
      throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    }
    return r;
  };
  return {
    client,
    /** `pollId`: the poll's id (poll-replay); a retry would send the same one. */
    poll: (limit, waitSeconds, pollId) =>
      call(
        "GET",
        `/events?limit=${limit}&waitSeconds=${waitSeconds}${pollId ? `&pollId=${pollId}` : ""}`,
        undefined,
        200,
      ),
    ack: (id) => call("POST", `/events/${encodeURIComponent(id)}/ack`, ACK_BODY, 200),
    /** One batch ack (`batch-ack` feature) for `ids`; throws unless every item answered ok. */
    ackMany: async (ids) => {
      const r = await call("POST", "/events/ack", { acks: ids.map((id) => ({ id, ...ACK_BODY })) }, 200);
      const bad = (r.body?.results ?? []).filter((x) => x.ok !== true);
      if (bad.length > 0 || r.body?.results?.length !== ids.length)
        throw new Error(`batch ack: ${JSON.stringify(r.body).slice(0, 300)}`);
      return r;
    },
    info: () => call("GET", "/info", undefined, 200),
    post: (podId, content) => call("POST", `/pods/${encodeURIComponent(podId)}/messages`, { content }, 201),
    get requests() {
      return client.requests;
    },
    close: () => client.close(),
  };
}

/** A fresh poll id, a UUID as the SDK makes them. */
export const newPollId = () => randomUUID();

/**
 * Drains `expected` events of one agent: long-poll `limit=50`, ack each event (or, with `batchAck`, all of
 * the poll's events in one `POST /events/ack`), until `expected` are acked, `deadline`
 * (performance.now()) passes or `shouldStop()` says so. With `pollIds`, each poll carries a fresh
 * `pollId`. Returns {acked, lastAckAt}.
 */
export async function drainDriver(
  agent,
  { expected, deadline, shouldStop = () => false, waitSeconds = 1, batchAck = false, pollIds = false },
) {
  let acked = 0;
  let lastAckAt = performance.now();
  while (acked < expected && performance.now() < deadline && !shouldStop()) {
    const r = await agent.poll(50, waitSeconds, pollIds ? newPollId() : undefined);
    const events = r.body.events.slice(0, expected - acked);
    if (batchAck) {
      if (events.length > 0) await agent.ackMany(events.map((e) => e.id));
      acked += events.length;
      lastAckAt = performance.now();
      continue;
    }
    for (const e of events) {
      await agent.ack(e.id);
      acked++;
      lastAckAt = performance.now();
    }
  }
  return { acked, lastAckAt };
}

/**
 * Conversational driver: every event is a mention; answer it with a message mentioning `next`, then ack
 * it. Counts events acked between `countFrom` and `stopAt` (performance.now()).
 */
export async function conversationalDriver(agent, { podId, next, countFrom, stopAt }) {
  let counted = 0;
  let hop = 0;
  while (performance.now() < stopAt) {
    const r = await agent.poll(50, 1);
    for (const e of r.body.events) {
      if (performance.now() >= stopAt) break;
      await agent.post(podId, `@${next} your turn (hop ${++hop})`);
      await agent.ack(e.id);
      const now = performance.now();
      if (now >= countFrom && now <= stopAt) counted++;
    }
  }
  return { counted };
}
