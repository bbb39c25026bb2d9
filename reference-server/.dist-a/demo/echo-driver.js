/**
 * A minimal CAP driver for the demo: long-polls, answers every event that mentions it with "echo: …"
 * as a threaded reply (Idempotency-Key = event id, so a redelivery never posts twice), acks everything.
 * It talks to the kernel over HTTP like any external driver; stop() aborts the poll in flight. It knows
 * the production profile's mention names too, so `demo --profile production` answers as well.
 */
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
const MENTION_TYPES = new Set(["mention.received", "chat.mention", "thread.mention"]);
export function startEchoDriver({ baseUrl, token, name, log = () => { } }) {
    const stop = new AbortController();
    const api = `${baseUrl}${CAP_BASE_PATH}`;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    async function handle(e) {
        const text = e.payload.content ?? "";
        if (MENTION_TYPES.has(e.type) && e.payload.messageId) {
            const reply = text.replace(new RegExp(`@${name}\\b`, "gi"), "").trim() || "(nothing to echo)";
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
                const { events } = (await r.json());
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
            }
            catch {
                if (stop.signal.aborted)
                    return;
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
//# sourceMappingURL=echo-driver.js.map