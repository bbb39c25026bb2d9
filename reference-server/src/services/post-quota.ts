/**
 * How much one runtime token may post: `limits.messagesPerMinute` messages and
 * `limits.messageBytesPerMinute` bytes of them (content plus metadata JSON, UTF-8), as two token buckets
 * per token that refill continuously — a full bucket allows a minute's worth at once, then the steady rate.
 * A refusal is `429 rate_limited` with `Retry-After` (the time until the bucket holds this post) and
 * `details.limit` naming the bucket that ran short.
 *
 * Kept in this process's memory, keyed by token id: with several replicas each counts the posts it
 * served, so N replicas behind a balancer allow up to N times the limit (reference-server/README.md).
 *
 * Must never count a post that is not stored: callers take() right before the insert (after an idempotent
 * replay has been answered) and giveBack() when that insert does not commit.
 */
import type { Clock } from "../clock.js";
import type { KernelLimits } from "../config.js";
import { KernelError } from "../errors/registry.js";

const MINUTE_MS = 60_000;
/** Above this many tracked tokens, buckets that have refilled completely are dropped (they hold nothing). */
const SWEEP_ABOVE = 4096;

interface Bucket {
  messages: number;
  bytes: number;
  at: number;
}

export interface PostQuota {
  /** Takes one message of `bytes` from the token's buckets, or throws 429 rate_limited. */
  take(tokenId: string, bytes: number): void;
  /** Returns what take() took for a post that was not stored after all. */
  giveBack(tokenId: string, bytes: number): void;
}

/** The bytes a post counts against `messageBytesPerMinute`: its content and its metadata as JSON. */
export function postBytes(body: { content: string; metadata?: unknown }): number {
  const meta = body.metadata === undefined ? 0 : Buffer.byteLength(JSON.stringify(body.metadata), "utf8");
  return Buffer.byteLength(body.content, "utf8") + meta;
}

export function createPostQuota(
  limits: Pick<KernelLimits, "messagesPerMinute" | "messageBytesPerMinute">,
  clock: Clock,
): PostQuota {
  const maxMessages = limits.messagesPerMinute;
  const maxBytes = limits.messageBytesPerMinute;
  const buckets = new Map<string, Bucket>();

  const refill = (tokenId: string, now: number): Bucket => {
    let b = buckets.get(tokenId);
    if (!b) {
      if (buckets.size >= SWEEP_ABOVE) sweep(now);
      b = { messages: maxMessages, bytes: maxBytes, at: now };
      buckets.set(tokenId, b);
      return b;
    }
    const elapsed = Math.max(0, now - b.at);
    b.messages = Math.min(maxMessages, b.messages + (elapsed * maxMessages) / MINUTE_MS);
    b.bytes = Math.min(maxBytes, b.bytes + (elapsed * maxBytes) / MINUTE_MS);
    b.at = now;
    return b;
  };

  function sweep(now: number) {
    for (const [id, b] of buckets) if (now - b.at >= MINUTE_MS) buckets.delete(id);
  }

  return {
    take(tokenId, bytes) {
      const b = refill(tokenId, clock.now());
      // A post larger than a whole minute's bytes waits for a full bucket instead of never passing.
      const need = Math.min(bytes, maxBytes);
      const msShortMessages = b.messages >= 1 ? 0 : ((1 - b.messages) * MINUTE_MS) / maxMessages;
      const msShortBytes = b.bytes >= need ? 0 : ((need - b.bytes) * MINUTE_MS) / maxBytes;
      if (msShortMessages === 0 && msShortBytes === 0) {
        b.messages -= 1;
        b.bytes -= need;
        return;
      }
      const [limit, max] =
        msShortMessages >= msShortBytes
          ? (["messagesPerMinute", maxMessages] as const)
          : (["messageBytesPerMinute", maxBytes] as const);
      const retryAfter = Math.max(1, Math.ceil(Math.max(msShortMessages, msShortBytes) / 1000));
      throw new KernelError(
        "rate_limited",
        `This token may post ${max} ${limit === "messagesPerMinute" ? "messages" : "bytes"} per minute.`,
        { limit, max },
        { "Retry-After": String(retryAfter) },
      );
    },
    giveBack(tokenId, bytes) {
      const b = buckets.get(tokenId);
      if (!b) return;
      b.messages = Math.min(maxMessages, b.messages + 1);
      b.bytes = Math.min(maxBytes, b.bytes + Math.min(bytes, maxBytes));
    },
  };
}
