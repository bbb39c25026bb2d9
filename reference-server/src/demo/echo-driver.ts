/**
 * A minimal CAP driver for the demo: long-polls, answers each mention of itself (and nothing else) with
 * "echo: …" as a threaded reply that mentions no agent, so it never starts a chain (Idempotency-Key = event id, so a redelivery never posts twice), acks everything.
 * It talks to the kernel over HTTP like any external driver; stop() aborts the poll in flight. It knows
 * the production profile's mention names too, so `demo --profile production` answers as well.
 *
 * A mention with `sleep N` (N ≤ 300 seconds) makes it work that long before answering, watching the event
 * for a cancel meanwhile (the watch also keeps its lease): a Stop in the console ends the turn at once, with
 * nothing posted and the event acked `cancelled`.
 *
 * Every request made for an event (watch, reply, ack) carries the event's trace context, as CAP's
 * trace-context feature asks of a driver, so a tracing kernel exports the whole story as one trace.
 */
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";

export interface EchoDriverOptions {
  baseUrl: string;
  token: string;
  name: string;
  log?: (line: string) => void;
}

const MENTION_TYPES = new Set(["mention.received", "chat.mention", "thread.mention"]);
/** `@` where the kernel would read a mention (services/fan-out.ts): not after a letter, digit or `_`. */
const AT_MENTION = /(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])/g;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text to echo: `content` without the mention of `self`, and every other `@name` without its `@`. */
export function echoText(content: string, self: string): string {
  const own = new RegExp(`(?<![A-Za-z0-9_])@${escapeRegExp(self)}(?![A-Za-z0-9_-])`, "gi");
  return content.replace(own, "").replace(AT_MENTION, "").replace(/\s+/g, " ").trim() || "(nothing to echo)";
}

/** `sleep N` in a mention: how long the demo's turn works, in seconds (at most 300). */
const SLEEP = /\bsleep (\d{1,4})\b/i;
const MAX_SLEEP_SECONDS = 300;

interface CapEvent {
  id: string;
  type: string;
  podId: string;
  attempts: number;
  payload: { messageId?: string; content?: string; author?: { name?: string } };
  traceContext?: { traceparent: string; tracestate?: string };
}

/** `headers` plus the event's trace context, so everything done for `e` joins the trace of what caused it. */
function forEvent(headers: Record<string, string>, e: CapEvent): Record<string, string> {
  const t = e.traceContext;
  if (!t) return headers;
  return { ...headers, traceparent: t.traceparent, ...(t.tracestate ? { tracestate: t.tracestate } : {}) };
}

export function startEchoDriver({ baseUrl, token, name, log = () => {} }: EchoDriverOptions) {
  const stop = new AbortController();
  const api = `${baseUrl}${CAP_BASE_PATH}`;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  /** Works `seconds` on `e`, watching it: "cancelled" when a cancel came (logged), "lost" without a lease. */
  async function work(e: CapEvent, seconds: number): Promise<"done" | "cancelled" | "lost"> {
    log(`${name} is working on ${e.id} for ${seconds} s (the console's Stop button ends it)`);
    const end = Date.now() + seconds * 1000;
    while (!stop.signal.aborted) {
      const left = Math.ceil((end - Date.now()) / 1000);
      if (left <= 0) return "done";
      const wait = Math.min(20, left);
      const r = await fetch(`${api}/events/${e.id}/cancellation?attempts=${e.attempts}&waitSeconds=${wait}`, {
        headers: forEvent(headers, e),
        signal: stop.signal,
      });
      if (r.status === 409) return "lost";
      const body = (await r.json()) as { cancelRequested?: boolean; reason?: string };
      if (r.ok && body.cancelRequested) {
        log(`${name}: ${e.id} was cancelled (${body.reason}); stopped, posting nothing`);
        return "cancelled";
      }
      // A kernel without the watch answers at once: wait out the slice instead of asking again.
      if (!r.ok) await new Promise((done) => setTimeout(done, wait * 1000));
    }
    return "lost";
  }

  async function handle(e: CapEvent) {
    const text = e.payload.content ?? "";
    if (MENTION_TYPES.has(e.type) && e.payload.messageId) {
      const sleep = SLEEP.exec(text);
      if (sleep) {
        const outcome = await work(e, Math.min(MAX_SLEEP_SECONDS, Number(sleep[1])));
        if (outcome !== "done") return outcome;
      }
      const reply = echoText(text, name);
      const r = await fetch(`${api}/pods/${e.podId}/messages`, {
        method: "POST",
        headers: { ...forEvent(headers, e), "idempotency-key": `echo-${e.id}` },
        body: JSON.stringify({ content: `echo: ${reply}`, replyToMessageId: e.payload.messageId }),
        signal: stop.signal,
      });
      log(`${name} answered ${e.payload.author?.name ?? "someone"} (${r.status}): echo: ${reply}`);
      return r.ok ? "posted" : "error";
    }
    return "skipped";
  }

  const done = (async () => {
    let failures = 0;
    while (!stop.signal.aborted) {
      try {
        const r = await fetch(`${api}/events?limit=10&waitSeconds=25`, { headers, signal: stop.signal });
        if (r.status === 401 || r.status === 403) {
          log(`${name}: token refused (${r.status}); stopping`);
          return;
        }
        const { events } = (await r.json()) as { events: CapEvent[] };
        failures = 0;
        for (const e of events) {
          const outcome = await handle(e);
          // A delivery whose lease was lost is not this driver's to settle any more.
          if (outcome === "lost") continue;
          const r = await fetch(`${api}/events/${e.id}/ack`, {
            method: "POST",
            headers: forEvent(headers, e),
            body: JSON.stringify({ result: { outcome } }),
            signal: stop.signal,
          });
          if (outcome === "cancelled") log(`${name} acked ${e.id} cancelled (${r.status})`);
        }
      } catch {
        if (stop.signal.aborted) return;
        failures++;
        await new Promise((r) => setTimeout(r, Math.min(15_000, 250 * 2 ** failures)));
      }
    }
  })();

  return {
    async stop() {
      stop.abort();
      await done;
    },
  };
}
