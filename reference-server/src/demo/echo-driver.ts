/**
 * A minimal CAP driver for the demo: long-polls, answers each mention of itself (and nothing else) with
 * "echo: …" as a threaded reply that mentions no agent, so it never starts a chain (Idempotency-Key = event id, so a redelivery never posts twice), acks everything.
 * It talks to the kernel over HTTP like any external driver; stop() aborts the poll in flight. It knows
 * the production profile's mention names too, so `demo --profile production` answers as well.
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

interface CapEvent {
  id: string;
  type: string;
  podId: string;
  payload: { messageId?: string; content?: string; author?: { name?: string } };
}

export function startEchoDriver({ baseUrl, token, name, log = () => {} }: EchoDriverOptions) {
  const stop = new AbortController();
  const api = `${baseUrl}${CAP_BASE_PATH}`;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  async function handle(e: CapEvent) {
    const text = e.payload.content ?? "";
    if (MENTION_TYPES.has(e.type) && e.payload.messageId) {
      const reply = echoText(text, name);
      const r = await fetch(`${api}/pods/${e.podId}/messages`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": `echo-${e.id}` },
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
          await fetch(`${api}/events/${e.id}/ack`, {
            method: "POST",
            headers,
            body: JSON.stringify({ result: { outcome } }),
            signal: stop.signal,
          });
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
