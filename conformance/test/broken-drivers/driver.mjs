// A small, correct CAP driver for the driver suite's self-test, in plain Node (fetch, no dependencies).
// Each broken driver in this folder starts it with one behaviour broken; run as is, it is the control
// that passes every MUST. Env: CAP_URL, CAP_TOKEN (what `cap-conformance driver` gives a driver).
// It reads /info once: with `renew` it renews the delivery it works on, with `cancel` it watches it for a
// cancel (waitSeconds 20) and, told by the watch or by a renew refused with details.cancelled, aborts its
// reply, posts nothing and acks `cancelled`; a renew or watch answered 409 lease_lost otherwise ends the
// turn without a post or an ack (the event is another poller's). A post that fails with a broken connection
// or a 5xx is retried with the same Idempotency-Key; an ack answered 404 (the event is gone) is settled. It
// forwards an event's trace context on every request it makes for the event, under a span id of its own (as
// a driver that records spans does).
//   node driver.mjs   # or: import { runDriver } from "./driver.mjs"; runDriver({ ...broken });
import { randomBytes } from "node:crypto";

const BASE = `${process.env.CAP_URL}/api/agents/runtime`;
const TOKEN = process.env.CAP_TOKEN;
const sleep = (ms, signal = undefined) =>
  new Promise((r) => {
    const t = setTimeout(r, ms);
    const wake = () => {
      clearTimeout(t);
      r();
    };
    signal?.addEventListener("abort", wake, { once: true });
  });

async function call(method, path, body, headers = {}, signal = undefined) {
  const res = await fetch(BASE + path, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(`${method} ${path}: HTTP ${res.status}`), { res, json });
  return json;
}

export const correct = {
  ack: true,
  /** Ack each event before handling it (broken when true: a crash mid-handler loses the event). */
  ackFirst: false,
  dedup: true,
  /** true: a key per event, the same on every attempt; "per-attempt": a new one each time (broken). */
  idempotencyKey: true,
  /** Attempts of one post that fails with a broken connection or a 5xx. */
  postAttempts: 4,
  /** Told its lease is lost (409 lease_lost to a renew or watch): stop the turn (broken when false). */
  stopOnLeaseLost: true,
  /** An ack answered 404 event_not_found: the event is settled, go on (broken: "exit"). */
  onAckGone: "continue",
  skipUnknown: true,
  replyPod: (event) => event.podId,
  waitSeconds: 5,
  backoffMs: (err) => Math.max(2000, Number(err.res?.headers.get("retry-after") ?? 0) * 1000),
  idleSleepMs: 2000,
  onAuthFailure: (err) => {
    console.error(`driver: the kernel refused the token (${err.json?.code ?? err.res?.status}); stopping`);
    process.exit(1);
  },
  /** Renew the delivery being worked on, when /info lists renew. */
  renew: true,
  /** Watch the delivery being worked on for a cancel, when /info lists cancel. */
  watch: true,
  watchSeconds: 20,
  /** Told of a cancel: post the reply anyway once the cancel aborted it (broken when true). */
  postAfterCancel: false,
  /** The outcome a cancelled delivery is acked with. */
  cancelledOutcome: "cancelled",
  /** Trace headers for a request of `kind` (renew, watch, reply, ack) on behalf of `event`, under span `span`. */
  trace: (event, span, _kind) => {
    const tc = event.traceContext;
    if (!tc?.traceparent) return {};
    const [version, traceId, , flags] = tc.traceparent.split("-");
    return {
      traceparent: `${version}-${traceId}-${span}-${flags}`,
      ...(tc.tracestate ? { tracestate: tc.tracestate } : {}),
    };
  },
};

/** What /info says: the optional features and the lease (none of them when it cannot be read). */
async function readInfo() {
  const i = await call("GET", "/info").catch(() => ({}));
  return { features: new Set(i.features ?? []), leaseMs: (i.leaseSeconds ?? 1) * 1000 };
}

/**
 * A turn's watch and renewals: both end with the turn; either may abort it with the cancel's reason, or
 * as lost when the kernel says this delivery is no longer held.
 */
function guard(o, info, event, turn) {
  const stopped = new AbortController();
  const told = (reason) => turn.abort({ cancelled: true, reason: reason ?? "requested" });
  const lost = (err) => {
    if (o.stopOnLeaseLost && err.res?.status === 409 && !turn.signal.aborted) turn.abort({ lost: true });
  };
  const loops = [];
  if (o.watch && info.features.has("cancel"))
    loops.push(
      (async () => {
        while (!stopped.signal.aborted) {
          try {
            const path = `/events/${event.id}/cancellation?attempts=${event.attempts}&waitSeconds=${o.watchSeconds}`;
            const w = await call("GET", path, undefined, o.trace(event, turn.span, "watch"), stopped.signal);
            if (w.cancelRequested) return told(w.reason);
          } catch (err) {
            if (stopped.signal.aborted) return;
            if (err.json?.details?.cancelled) return told(err.json.details.reason);
            if (err.res?.status === 409 || err.res?.status === 404) return lost(err);
            await sleep(1000, stopped.signal);
          }
        }
      })(),
    );
  if (o.renew && info.features.has("renew"))
    loops.push(
      (async () => {
        while (!stopped.signal.aborted) {
          await sleep(info.leaseMs / 2, stopped.signal);
          if (stopped.signal.aborted) return;
          try {
            const headers = o.trace(event, turn.span, "renew");
            await call(
              "POST",
              `/events/${event.id}/renew`,
              { attempts: event.attempts },
              headers,
              stopped.signal,
            );
          } catch (err) {
            if (err.json?.details?.cancelled) told(err.json.details.reason);
            else lost(err);
            if (err.res) return;
          }
        }
      })(),
    );
  return async () => {
    stopped.abort();
    await Promise.allSettled(loops);
  };
}

/** Retried after a broken connection or a 5xx, as long as the turn runs; a 4xx is final. */
async function post(o, event, signal, trace = {}) {
  const key = `echo-${event.id}`;
  for (let attempt = 1; ; attempt++) {
    const keyHeader =
      o.idempotencyKey === "per-attempt"
        ? { "idempotency-key": `${key}-${attempt}-${Math.random().toString(36).slice(2)}` }
        : o.idempotencyKey
          ? { "idempotency-key": key }
          : {};
    try {
      return await call(
        "POST",
        `/pods/${o.replyPod(event)}/messages`,
        { content: `echo: ${event.payload.content}` },
        { ...keyHeader, ...trace },
        signal,
      );
    } catch (err) {
      const transient = err instanceof TypeError || err.res?.status >= 500;
      if (!transient || attempt >= o.postAttempts || signal?.aborted) throw err;
      await sleep(Math.max(500, Number(err.res?.headers.get("retry-after") ?? 0) * 1000), signal);
      if (signal?.aborted) throw signal.reason;
    }
  }
}

async function reply(o, event, turn) {
  const send = (signal) => post(o, event, signal, o.trace(event, turn.span, "reply"));
  try {
    return { outcome: "posted", messageId: (await send(turn.signal)).id };
  } catch (err) {
    if (!turn.signal.aborted) throw err;
    if (o.postAfterCancel) return { outcome: "posted", messageId: (await send()).id };
    throw err;
  }
}

export async function runDriver(overrides = {}) {
  const o = { ...correct, ...overrides };
  const handled = new Map();
  process.once("SIGTERM", () => process.exit(0));
  const info = await readInfo();
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
      const turn = Object.assign(new AbortController(), { span: randomBytes(8).toString("hex") });
      const stopGuard = guard(o, info, event, turn);
      try {
        if (o.ackFirst)
          await call("POST", `/events/${event.id}/ack`, { result: { outcome: "acknowledged" } });
        let result = o.dedup ? handled.get(event.id) : undefined;
        if (!result) {
          if (!["message.posted", "mention.received"].includes(event.type)) {
            if (!o.skipUnknown) throw new Error(`unknown event type ${event.type}`);
            result = { outcome: "skipped", reason: `does not handle ${event.type}` };
          } else {
            result = await reply(o, event, turn).catch((err) => {
              if (turn.signal.reason?.cancelled)
                return { outcome: o.cancelledOutcome, reason: turn.signal.reason.reason };
              throw err;
            });
          }
          handled.set(event.id, result);
        }
        await stopGuard();
        if (o.ack && !o.ackFirst)
          await call("POST", `/events/${event.id}/ack`, { result }, o.trace(event, turn.span, "ack"));
      } catch (err) {
        await stopGuard();
        // The delivery is another poller's now: nothing more for it, not even an ack.
        if (turn.signal.reason?.lost) continue;
        if (err.res?.status === 404 && o.onAckGone === "exit") {
          console.error(`driver: ${err.message}; exiting`);
          process.exit(1);
        }
        if (err instanceof TypeError || err.res) break; // network or HTTP failure: poll again, it comes back
        throw err;
      } finally {
        await stopGuard();
      }
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runDriver();
