/**
 * Lease renewal: the delivery holding the lease extends it to `leaseSeconds` from now, and a renewal
 * naming a delivery that lost the lease (re-claimed, or acked) is fenced off with 409 lease_lost.
 */
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { now, tolerance, until } from "../timing.js";
import { firstDelivery, leaseMs, nextDelivery } from "./leases.js";
import { isUtcTimestamp } from "./support.js";

function expectRenewed(ctx: CheckContext, res: Answer, what: string): void {
  const body = res.body as { ok?: unknown; leaseExpiresAt?: unknown } | undefined;
  ctx.expect("CAP-LEASE-7", res.status === 200 && body?.ok === true && isUtcTimestamp(body?.leaseExpiresAt), {
    message: what,
    expected: 'HTTP 200 {"ok": true, "leaseExpiresAt": <UTC date-time>}',
    actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
    exchange: res,
  });
}

export const renewChecks = [
  defineCheck({
    id: "renew.extends-lease",
    family: "renew",
    title: "extends the lease of the current delivery to leaseSeconds from the renewal",
    verifies: ["CAP-LEASE-7"],
    feature: "renew",
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const { nonce, first } = await firstDelivery(ctx);
      await until(first.answeredAt + L / 2);
      const renewedAt = now();
      const res = await ctx.as("b").renew(first.event.id, first.event.attempts);
      expectRenewed(ctx, res, "renewing the lease this delivery holds");
      const previous = first.event.leaseExpiresAt;
      const next = (res.body as { leaseExpiresAt?: string } | undefined)?.leaseExpiresAt;
      if (previous && next)
        ctx.expect("CAP-LEASE-7", Date.parse(next) > Date.parse(previous), {
          message: "the renewed leaseExpiresAt is not later than the original",
          expected: `after ${previous}`,
          actual: next,
          exchange: res,
        });
      // Past the original expiry but inside the renewed lease: the event must stay invisible. The renewed
      // lease ends no earlier than renewedAt + L (the kernel saw the renewal after we sent it), so only an
      // answer that arrived before then proves a redelivery inside the lease.
      const early = await nextDelivery(ctx, nonce, renewedAt + L - 100);
      const inside = early !== undefined && early.answeredAt < renewedAt + L - 25;
      ctx.expect("CAP-LEASE-7", !inside, {
        message: `redelivered ${early ? Math.round(early.answeredAt - renewedAt) : 0} ms after a renewal; the renewed lease is ${L} ms`,
        expected: "not delivered while the renewed lease runs",
        actual: early?.event,
        ...(early ? { exchange: early.answer } : {}),
      });
      const later = early ?? (await nextDelivery(ctx, nonce, renewedAt + L + tolerance(ctx.timing)));
      ctx.expect("CAP-LEASE-7", later !== undefined, {
        message: "the event was not redelivered after the renewed lease ended",
        expected: `redelivery by ${L + tolerance(ctx.timing)} ms after the renewal`,
        actual: "no redelivery",
      });
      if (later) await ctx.as("b").ack(later.event.id);
    },
  }),
  defineCheck({
    id: "renew.fenced",
    family: "renew",
    title: "answers 409 lease_lost to a renewal from a delivery that was re-claimed or acked",
    verifies: ["CAP-LEASE-8", "CAP-LEASE-7"],
    feature: "renew",
    queue: true,
    async run(ctx: CheckContext) {
      const L = leaseMs(ctx);
      const { nonce, first } = await firstDelivery(ctx);
      const again = await nextDelivery(ctx, nonce, first.answeredAt + L + tolerance(ctx.timing));
      if (!again) ctx.incomplete("the event was not redelivered (see leases.redelivered-after-expiry)");
      const b = ctx.as("b");
      const stale = await b.renew(first.event.id, first.event.attempts);
      ctx.expectError(
        "CAP-LEASE-8",
        stale,
        409,
        "lease_lost",
        "renewing with the attempts of a delivery that was re-claimed",
      );
      expectRenewed(
        ctx,
        await b.renew(again.event.id, again.event.attempts),
        "renewing the current delivery",
      );
      await b.ack(again.event.id);
      const acked = await b.renew(again.event.id, again.event.attempts);
      ctx.expectError("CAP-LEASE-8", acked, 409, "lease_lost", "renewing an acked event");
    },
  }),
];
