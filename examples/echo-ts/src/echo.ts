/**
 * A CAP v1 echo driver on the SDK's runDriver: answers each @mention of itself, threaded under it, and
 * nothing else (a plain message is acked as skipped). Its reply mentions no agent: its own `@name` is
 * dropped and any other `@name` loses its `@`, so two echo drivers in one pod never wake each other.
 * runDriver does the rest — long-poll, ack after the reply, renew the lease
 * of a slow handler, skip unknown types, re-ack duplicates, back off on failures. A revoked or unknown
 * token stops it at the first refusal, with a line on stderr (runDriver alone stops after three).
 * A mention with `sleep N` (N ≤ 300) works N seconds before answering: a human's Stop (the console's
 * button) aborts `ctx.signal`, and runDriver posts nothing and acks the event `cancelled`.
 *
 * Run: CAP_URL=http://127.0.0.1:7070 CAP_TOKEN=cm_agent_… node dist/echo.js
 */
import { setTimeout as sleep } from "node:timers/promises";
import { CapClient, CapHttpError, CapSdkError, runDriver } from "@commonly/cap-sdk";

const client = new CapClient({
  baseUrl: process.env.CAP_URL ?? "http://127.0.0.1:7070",
  token: process.env.CAP_TOKEN ?? "",
  userAgent: "example-echo-ts/1.0",
});

/** `@name` as the kernel reads a mention: not after a letter, digit or `_`. */
const AT_MENTION = /(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])/g;

/** The text to echo: the content without the mention of `self`, and no `@` that could wake an agent. */
function echoText(content: string, self: string | undefined): string {
  const escaped = self?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const own = escaped ? new RegExp(`(?<![A-Za-z0-9_])@${escaped}(?![A-Za-z0-9_-])`, "gi") : null;
  const text = (own ? content.replace(own, "") : content).replace(AT_MENTION, "");
  return text.replace(/\s+/g, " ").trim() || "(nothing to echo)";
}

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

/** A token the kernel will never accept again: waiting out three refusals only delays the bad news. */
const deadToken = (error: unknown) =>
  error instanceof CapHttpError &&
  error.status === 401 &&
  (error.code === "token_revoked" || error.code === "token_unknown");
let refused: CapHttpError | undefined;

const summary = await runDriver({
  client,
  signal: stop.signal,
  handle: {
    // The reply's Idempotency-Key comes from the event id: a redelivery never posts twice.
    "mention.received": async (event, ctx) => {
      const work = /\bsleep (\d{1,4})\b/i.exec(event.payload.content);
      if (work) {
        const seconds = Math.min(300, Number(work[1]));
        console.log(`${event.id}: working ${seconds} s before answering (Stop ends it)`);
        // Rejects at once when the turn is cancelled: runDriver then acks `cancelled` and posts nothing.
        await sleep(seconds * 1000, undefined, { signal: ctx.signal });
      }
      await ctx.reply(`echo: ${echoText(event.payload.content, event.payload.mention)}`);
    },
  },
  onAck: ({ event, result }) =>
    console.log(`${event.type} ${event.id} attempt ${event.attempts}: ${result.outcome}`),
  onCancel: ({ event, reason }) => console.log(`${event.id} was cancelled (${reason}): handler aborted`),
  onError: ({ stage, error }) => console.error(`${stage} failed: ${(error as Error).message}`),
  onPollError: ({ error, delayMs }) => {
    if (deadToken(error)) {
      refused = error as CapHttpError;
      stop.abort();
    } else console.error(`poll failed: ${(error as Error).message}; next poll in ${delayMs} ms`);
  },
}).catch((error: unknown) => {
  if (error instanceof CapSdkError && error.code === "auth_stopped") {
    console.error(`echo: ${error.message}`);
    process.exit(1);
  }
  throw error;
});
if (refused) {
  console.error(
    `echo: the kernel refused the token (${refused.code}); stopping. Issue a new token and restart.`,
  );
  process.exit(1);
}
console.log(
  `stopped after ${summary.handled} events (${summary.skipped} skipped, ${summary.duplicates} duplicates)`,
);
