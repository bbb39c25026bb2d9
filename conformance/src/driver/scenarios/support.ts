/** Helpers the driver scenarios share: reading acks, posts and polls off the wire, and judging replies. */
import type { DriverContext } from "../context.js";
import type { WireExchange } from "../fault-proxy.js";
import type { PodMessage } from "../world.js";

export const OUTCOMES = ["acknowledged", "posted", "no_action", "skipped", "error", "cancelled"] as const;

const ok = (x: WireExchange) => x.status >= 200 && x.status < 300;

/** The `result` an ack exchange sent for `eventId` (single or batch ack); null when none was sent. */
export function ackResults(
  x: { kind: WireExchange["kind"]; eventId?: string | undefined; requestJson?: unknown },
  eventId: string,
): unknown[] {
  const body = x.requestJson as Record<string, unknown> | undefined;
  if (x.kind === "ack" && x.eventId === eventId) return [body?.result ?? null];
  if (x.kind === "batch-ack" && Array.isArray(body?.acks))
    return (body.acks as Record<string, unknown>[])
      .filter((a) => a?.id === eventId)
      .map((a) => a.result ?? null);
  return [];
}

/** Ack exchanges (single or batch) that named `eventId`. */
export const acksOf = (ctx: DriverContext, eventId: string) =>
  ctx.wire("ack", "batch-ack").filter((x) => ackResults(x, eventId).length > 0);

/** Judge the outcome of every ack of `eventId`: each `result.outcome`, when sent, is one CAP defines. */
export function expectValidOutcomes(ctx: DriverContext, requirement: string, eventId: string): void {
  for (const x of acksOf(ctx, eventId))
    for (const r of ackResults(x, eventId)) {
      const outcome = (r as { outcome?: unknown } | null)?.outcome;
      if (r === null) continue;
      ctx.expect(requirement, OUTCOMES.includes(outcome as (typeof OUTCOMES)[number]), {
        message: `the ack of ${eventId} sent an outcome CAP does not define`,
        expected: OUTCOMES.join(" | "),
        actual: JSON.stringify(r),
        wire: [x],
      });
    }
}

/** The kernel's record of the outcome the event was settled with (`result.outcome`), if any. */
export async function settledOutcome(ctx: DriverContext, eventId: string): Promise<string | undefined> {
  const e = await ctx.world.event(eventId);
  const outcome = (e?.result as { outcome?: unknown } | null | undefined)?.outcome;
  return typeof outcome === "string" ? outcome : undefined;
}

/** Posts the driver sent (the wire), optionally only those after `after` (epoch ms). */
export const postsOnWire = (ctx: DriverContext, after = 0) => ctx.wire("post").filter((x) => x.at >= after);

export interface ReplyTarget {
  eventId: string;
  podId: string;
  messageId: string;
}

/**
 * Judge the posts a driver made while handling one event: each into the event's pod, threaded (when
 * threaded) under its message (CAP-DRV-9); the ack after the post took effect (CAP-DRV-4); an
 * Idempotency-Key on each (CAP-IDEM-5). `posts` are that phase's post exchanges.
 */
export function judgeReplies(
  ctx: DriverContext,
  target: ReplyTarget,
  posts: WireExchange[],
  ids: { pod: string; ackAfterPost?: string; batchAckAfterPost?: string; idempotencyKey?: string },
): void {
  for (const p of posts) {
    ctx.expect(ids.pod, p.podId === target.podId, {
      message: `the driver posted its reply to event ${target.eventId} into another pod`,
      expected: `POST /pods/${target.podId}/messages`,
      actual: `POST /pods/${p.podId}/messages`,
      wire: [p],
    });
    const replyTo = (p.requestJson as { replyToMessageId?: unknown } | undefined)?.replyToMessageId;
    if (replyTo !== undefined)
      ctx.expect(ids.pod, replyTo === target.messageId, {
        message: `the driver threaded its reply to event ${target.eventId} under another message`,
        expected: `replyToMessageId ${target.messageId}`,
        actual: `replyToMessageId ${JSON.stringify(replyTo)}`,
        wire: [p],
      });
    if (ids.idempotencyKey && ok(p))
      ctx.expect(ids.idempotencyKey, p.requestHeaders["idempotency-key"] !== undefined, {
        message: `the reply to event ${target.eventId} carried no Idempotency-Key`,
        expected: "an Idempotency-Key header derived from the event",
        actual: "no Idempotency-Key header",
        wire: [p],
      });
  }
  const acks = acksOf(ctx, target.eventId).filter(ok);
  const firstAck = acks[0];
  const effective = posts.filter(ok);
  const id = firstAck?.kind === "batch-ack" ? (ids.batchAckAfterPost ?? ids.ackAfterPost) : ids.ackAfterPost;
  if (id && firstAck && effective.length > 0) {
    const lastPost = effective[effective.length - 1] as WireExchange;
    ctx.expect(id, firstAck.at >= lastPost.endAt, {
      message: `the driver acked event ${target.eventId} before its reply had been posted`,
      expected: "the ack sent after the post was answered",
      actual: `ack sent ${lastPost.endAt - firstAck.at} ms before the post's answer`,
      wire: [lastPost, firstAck],
    });
  }
}

/** Polls answered (by kernel or fault) within [from, to). */
export const pollsBetween = (ctx: DriverContext, from: number, to: number) =>
  ctx.wire("poll").filter((x) => x.at >= from && x.at < to);

/** Agent messages in the kernel that mention `nonce`. */
export const withNonce = (messages: PodMessage[], nonce: string) =>
  messages.filter((m) => m.content.includes(nonce));

/** A poll's events as the driver saw them. */
export function polledEvents(x: { json: unknown }): { id?: unknown; attempts?: unknown }[] {
  const events = (x.json as { events?: unknown } | undefined)?.events;
  return Array.isArray(events) ? (events as { id?: unknown; attempts?: unknown }[]) : [];
}

/** `waitSeconds` of a poll, 0 when absent. */
export function waitSecondsOf(x: WireExchange): number {
  const q = new URL(x.url, "http://x").searchParams.get("waitSeconds");
  const n = Number(q ?? 0);
  return Number.isFinite(n) ? n : 0;
}
