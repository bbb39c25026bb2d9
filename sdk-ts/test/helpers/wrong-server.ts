/**
 * Deliberately wrong CAP servers for the rate-bound tests: every poll answers the same one or two
 * mention events (as a stateless mock does) or a fresh one, posts succeed, and the answer under test
 * is wrong — acks refused or answered with junk, a batch ack whose results do not match its items
 * (Prism's example), an acked event delivered again, polls answered with what is not an event list.
 * Each server records when every request arrived, so a test can count requests per second on the
 * server side. It must never behave like a kernel a driver should hurry for.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { send, tinyServer } from "./tiny-server.js";

type Answer = (res: ServerResponse, req: IncomingMessage, body: string) => void;

export interface WrongServer {
  /** What the table row is called. */
  name: string;
  /** Features `/info` advertises (default `["long-poll"]`). */
  features?: string[];
  /** Events per poll (default 1). */
  perPoll?: number;
  /** A new event id on every poll instead of the same ones (default false). */
  fresh?: boolean;
  poll?: Answer;
  ack?: Answer;
  batchAck?: Answer;
}

const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => {
  return (res) => send(res, status, body, headers);
};

const raw = (status: number, text: string): Answer => {
  return (res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(text);
  };
};

const reset: Answer = (_res, req) => req.socket.destroy();

/** Prism's answer to every batch ack: the spec's example, two results for ids nobody sent. */
const prismBatch = json(200, {
  results: [
    { id: "evt_01JH7Z9QK3W5Y2", ok: true },
    { id: "evt_01JH7Z9QK3W5Y3", ok: false, code: "event_not_found" },
  ],
});

export const WRONG_SERVERS: WrongServer[] = [
  { name: "acks answer 500", ack: json(500, { code: "internal_error", message: "boom" }) },
  { name: "acks answer 200 with a body that is not JSON", ack: raw(200, "<html>ok</html>") },
  { name: "acks answer 200 {ok: false}", ack: json(200, { ok: false }) },
  { name: "acks answer 200 with a JSON array", ack: json(200, [1, 2]) },
  { name: "acks reset the connection", ack: reset },
  { name: "acks answer 200 {ok: true} and the acked event comes back at every poll" },
  {
    name: "the batch ack answers Prism's example (two results for other ids)",
    features: ["long-poll", "batch-ack"],
    perPoll: 2,
    batchAck: prismBatch,
  },
  {
    name: "the batch ack answers three results for two items",
    features: ["long-poll", "batch-ack"],
    perPoll: 2,
    batchAck: (res, _req, body) => {
      const ids = (JSON.parse(body) as { acks: { id: string }[] }).acks.map((a) => a.id);
      send(res, 200, { results: [...ids, "evt_extra"].map((id) => ({ id, ok: true })) });
    },
  },
  {
    name: "the batch ack answers 503 with Retry-After: 1",
    features: ["long-poll", "batch-ack"],
    perPoll: 2,
    batchAck: json(503, { code: "store_unavailable", message: "down" }, { "retry-after": "1" }),
  },
  {
    name: "a fresh event at every poll, and every ack answers 500",
    fresh: true,
    ack: json(500, { code: "internal_error", message: "boom" }),
  },
  { name: "polls answer an events value that is not an array", poll: json(200, { events: "soon" }) },
  { name: "polls answer 200 with malformed JSON", poll: raw(200, '{"events": [') },
  { name: "polls answer 500", poll: json(500, { code: "internal_error", message: "boom" }) },
];

function mention(id: string, now: number) {
  return {
    id,
    type: "mention.received",
    podId: "pod_wrong",
    payload: {
      messageId: `msg_${id}`,
      podId: "pod_wrong",
      content: "@echo are you there?",
      author: { id: "usr_1", kind: "human", name: "lily" },
      mention: "echo",
    },
    attempts: 1,
    createdAt: new Date(now).toISOString(),
    leaseExpiresAt: new Date(now + 30_000).toISOString(),
  };
}

/** Serves `row`; `times` holds the arrival time (ms since the epoch) of every request. */
export async function startWrongServer(row: WrongServer) {
  const times: number[] = [];
  let polls = 0;
  let messages = 0;
  const server = await tinyServer((req, res, body) => {
    times.push(Date.now());
    const path = new URL(req.url!, "http://x").pathname.replace("/api/agents/runtime", "");
    if (path === "/info")
      return send(res, 200, {
        protocol: "cap",
        version: "1",
        leaseSeconds: 30,
        maxAttempts: 5,
        maxLimit: 50,
        maxWaitSeconds: 25,
        maxMessageBytes: 65536,
        features: row.features ?? ["long-poll"],
      });
    if (path === "/events" && req.method === "GET") {
      if (row.poll) return row.poll(res, req, body);
      const batch = polls++;
      const ids = Array.from({ length: row.perPoll ?? 1 }, (_, i) =>
        row.fresh ? `evt_${batch}_${i}` : `evt_same_${i}`,
      );
      return send(res, 200, { events: ids.map((id) => mention(id, Date.now())) });
    }
    if (path === "/events/ack") return (row.batchAck ?? json(200, { results: [] }))(res, req, body);
    if (/^\/events\/[^/]+\/ack$/.test(path)) return (row.ack ?? json(200, { ok: true }))(res, req, body);
    if (/^\/pods\/[^/]+\/messages$/.test(path) && req.method === "POST")
      return send(res, 201, { id: `msg_reply_${messages++}`, createdAt: new Date().toISOString() });
    send(res, 404, { code: "route_not_found", message: `no route ${req.method} ${path}` });
  });
  return { ...server, times };
}

/** Requests per whole second from the first request until `until`: `[n0, n1, …]`. */
export function perSecond(times: number[], until: number): number[] {
  if (times.length === 0) return [];
  const start = times[0]!;
  const counts = Array.from({ length: Math.ceil((until - start) / 1000) }, () => 0);
  for (const t of times) if (t < until) counts[Math.floor((t - start) / 1000)]! += 1;
  return counts;
}
