/**
 * What the `cancel` checks share: events for agent b in each state a cancel can meet (a held delivery, a
 * pending event, a failed one, the last delivery), the shapes of a cancel's answer and of a watch's, and a
 * loop that keeps a delivery held while a check watches it. Every wait runs to a deadline from the lease.
 */
import { demands } from "../agents.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { now, pause, tolerance, until } from "../timing.js";
import { type Delivery, firstDelivery, leaseMs, nextDelivery } from "./leases.js";
import { isUtcTimestamp } from "./support.js";

export interface CancelAnswer {
  ok?: unknown;
  status?: unknown;
  changed?: unknown;
}

const shows = (res: Answer) => `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`;

/** Expect `200 {ok: true, status, changed}` with this status (and `changed`, when given). */
export function expectCancelAnswer(
  ctx: CheckContext,
  requirement: string,
  res: Answer,
  want: { status: "cancelled" | "acked" | "failed"; changed?: boolean },
  what: string,
): boolean {
  const body = res.body as CancelAnswer | undefined;
  const ok =
    res.status === 200 &&
    body?.ok === true &&
    body.status === want.status &&
    typeof body.changed === "boolean" &&
    (want.changed === undefined || body.changed === want.changed);
  return ctx.expect(requirement, ok, {
    message: what,
    expected: `HTTP 200 {"ok": true, "status": "${want.status}", "changed": ${want.changed ?? "<boolean>"}}`,
    actual: shows(res),
    exchange: res,
  });
}

/** A cancel the check relies on but does not verify (judged as CAP-CANCEL-1's answer). */
export async function cancelStep(ctx: CheckContext, id: string, body?: unknown): Promise<void> {
  ctx.setupAnswer(await ctx.as("b").cancel(id, body), demands.cancel, `cancelling event ${id}`);
}

export interface WatchAnswer {
  cancelRequested?: unknown;
  reason?: unknown;
  requestedAt?: unknown;
  leaseExpiresAt?: unknown;
}

/** `200 {cancelRequested: true, reason, requestedAt}`, with this reason when given. */
export const isRequested = (res: Answer, reason?: string): boolean => {
  const b = res.body as WatchAnswer | undefined;
  return (
    res.status === 200 &&
    b?.cancelRequested === true &&
    typeof b.reason === "string" &&
    (reason === undefined || b.reason === reason) &&
    isUtcTimestamp(b.requestedAt)
  );
};

/** `200 {cancelRequested: false, leaseExpiresAt}`. */
export const isNotRequested = (res: Answer): boolean => {
  const b = res.body as WatchAnswer | undefined;
  return res.status === 200 && b?.cancelRequested === false && isUtcTimestamp(b.leaseExpiresAt);
};

export const requestedShape = (reason = "<string>") =>
  `HTTP 200 {"cancelRequested": true, "reason": ${JSON.stringify(reason)}, "requestedAt": <UTC date-time>}`;
export const notRequestedShape = 'HTTP 200 {"cancelRequested": false, "leaseExpiresAt": <UTC date-time>}';
export { shows };

/** Watch delivery `d` of b's once, as b, without waiting. */
export const peek = (ctx: CheckContext, d: Delivery) =>
  ctx.as("b").cancellation(d.event.id, { attempts: d.event.attempts, waitSeconds: 0 });

/** A delivery b holds now (a fresh event, triggered and polled). */
export const held = async (ctx: CheckContext) => (await firstDelivery(ctx)).first;

/**
 * An event of b's that is pending with no delivery held: released for ten minutes when the kernel has
 * `release` (so no poll returns it meanwhile), else its first lease left to end.
 */
export async function pendingEvent(ctx: CheckContext): Promise<Delivery> {
  const d = await held(ctx);
  if (ctx.has("release")) {
    const res = await ctx.as("b").release(d.event.id, { attempts: d.event.attempts, delaySeconds: 600 });
    ctx.setupStatus("CAP-REL-1", res, 200, "releasing a delivery to leave its event pending");
  } else await until(d.sentAt + leaseMs(ctx) + 50);
  return d;
}

/** b's delivery of a fresh event that carries attempts = maxAttempts (released or left to lapse until then). */
export async function lastDelivery(ctx: CheckContext): Promise<Delivery> {
  const M =
    ctx.timing.maxAttempts ??
    ctx.incomplete("maxAttempts unknown: no /info and no --max-attempts (or fixture maxAttempts)");
  const { nonce, first } = await firstDelivery(ctx);
  let d = first;
  while (d.event.attempts < M) {
    if (ctx.has("release")) {
      const res = await ctx.as("b").release(d.event.id, { attempts: d.event.attempts });
      ctx.setupStatus("CAP-REL-1", res, 200, "releasing a delivery to reach the last attempt");
    }
    const next = await nextDelivery(ctx, nonce, now() + leaseMs(ctx) + tolerance(ctx.timing));
    if (!next) ctx.incomplete(`the event did not come back after delivery ${d.event.attempts}`);
    d = next;
  }
  return d;
}

/** The id of a fresh event of b's that is `failed`: its last delivery released, or left to lapse. */
export async function failedEvent(ctx: CheckContext): Promise<string> {
  const d = await lastDelivery(ctx);
  if (ctx.has("release")) {
    const res = await ctx.as("b").release(d.event.id, { attempts: d.event.attempts });
    ctx.setupStatus("CAP-REL-4", res, 200, "releasing the last delivery to fail the event");
  } else await until(d.answeredAt + leaseMs(ctx) + tolerance(ctx.timing));
  return d.event.id;
}

/**
 * Renew `d` every third of a lease (kernels with `renew`) until the returned stop is called, so a watch
 * longer than the lease still names a held delivery. The renewals are steps: their answers are not judged.
 */
export function keepHeld(ctx: CheckContext, d: Delivery): () => Promise<void> {
  if (!ctx.has("renew")) return async () => {};
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await pause(leaseMs(ctx) / 3);
      if (stopped) break;
      const res = await ctx.as("b").renew(d.event.id, d.event.attempts);
      if (res.status !== 200) break;
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** Ack b's events the check is done with (an ack of a cancelled event is accepted: CAP-CANCEL-6). */
export async function settle(ctx: CheckContext, ...ids: string[]): Promise<void> {
  for (const id of ids)
    await ctx.as("b").ack(id, { result: { outcome: "cancelled", reason: "conformance" } });
}
