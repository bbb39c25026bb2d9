// A small, correct CAP driver for the driver suite's self-test, in plain Node (fetch, no dependencies).
// Each broken driver in this folder starts it with one behaviour broken; run as is, it is the control
// that passes every MUST. Env: CAP_URL, CAP_TOKEN (what `cap-conformance driver` gives a driver).
//   node driver.mjs   # or: import { runDriver } from "./driver.mjs"; runDriver({ ...broken });
const BASE = `${process.env.CAP_URL}/api/agents/runtime`;
const TOKEN = process.env.CAP_TOKEN;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(method, path, body, headers = {}) {
  const res = await fetch(BASE + path, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(`${method} ${path}: HTTP ${res.status}`), { res, json });
  return json;
}

export const correct = {
  ack: true,
  dedup: true,
  idempotencyKey: true,
  skipUnknown: true,
  replyPod: (event) => event.podId,
  waitSeconds: 5,
  backoffMs: (err) => Math.max(2000, Number(err.res?.headers.get("retry-after") ?? 0) * 1000),
  idleSleepMs: 2000,
  onAuthFailure: (err) => {
    console.error(`driver: the kernel refused the token (${err.json?.code ?? err.res?.status}); stopping`);
    process.exit(1);
  },
};

export async function runDriver(overrides = {}) {
  const o = { ...correct, ...overrides };
  const handled = new Map();
  process.once("SIGTERM", () => process.exit(0));
  for (;;) {
    let events;
    const started = Date.now();
    try {
      ({ events } = await call("GET", `/events?limit=10&waitSeconds=${o.waitSeconds}`));
    } catch (err) {
      if (err.res?.status === 401) await o.onAuthFailure(err);
      else await sleep(o.backoffMs(err));
      continue;
    }
    if (events.length === 0 && Date.now() - started < 1000) await sleep(o.idleSleepMs);
    for (const event of events) {
      try {
        let result = o.dedup ? handled.get(event.id) : undefined;
        if (!result) {
          if (!["message.posted", "mention.received"].includes(event.type)) {
            if (!o.skipUnknown) throw new Error(`unknown event type ${event.type}`);
            result = { outcome: "skipped", reason: `does not handle ${event.type}` };
          } else {
            const posted = await call(
              "POST",
              `/pods/${o.replyPod(event)}/messages`,
              { content: `echo: ${event.payload.content}` },
              o.idempotencyKey ? { "idempotency-key": `echo-${event.id}` } : {},
            );
            result = { outcome: "posted", messageId: posted.id };
          }
          handled.set(event.id, result);
        }
        if (o.ack) await call("POST", `/events/${event.id}/ack`, { result });
      } catch (err) {
        if (err instanceof TypeError || err.res) break; // network or HTTP failure: poll again, it comes back
        throw err;
      }
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runDriver();
