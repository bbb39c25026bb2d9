/**
 * Release (`release`): the delivery that holds the lease gives the event back; it is ready again at
 * `availableAt` (now + delaySeconds) and the first poll at or after that returns it with attempts + 1;
 * never before; a released last attempt is failed at once; the release is fenced like renew.
 */
import { demands, type WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, eventsOf } from "../queue.js";
import { now, tolerance } from "../timing.js";
import { type Delivery, firstDelivery, leaseMs, nextDelivery } from "./leases.js";
import { isUtcTimestamp } from "./support.js";

type ReleaseBody = { ok?: unknown; status?: unknown; availableAt?: unknown };

function expectReleased(ctx: CheckContext, res: Answer, status: "pending" | "failed", what: string): boolean {
  const body = res.body as ReleaseBody | undefined;
  const ok =
    res.status === 200 &&
    body?.ok === true &&
    body.status === status &&
    (status === "failed" || isUtcTimestamp(body.availableAt));
  return ctx.expect(status === "failed" ? "CAP-REL-4" : "CAP-REL-1", ok, {
    message: what,
    expected:
      status === "pending"
        ? 'HTTP 200 {"ok": true, "status": "pending", "availableAt": <UTC date-time>}'
        : 'HTTP 200 {"ok": true, "status": "failed"}',
    actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
    exchange: res,
  });
}

/** One poll as b: the event carrying `nonce`, if this very poll returned it (everything else is acked). */
async function onePoll(ctx: CheckContext, nonce: string): Promise<{ hit?: WireEvent; answer: Answer }> {
  const b = ctx.as("b");
  const answer = await b.poll({ limit: 50 });
  let hit: WireEvent | undefined;
  for (const e of eventsOf(ctx, answer)) {
    if (carries(e, nonce)) hit = e;
    else await b.ack(e.id, { result: { outcome: "skipped", reason: "conformance: not this check's event" } });
  }
  return { ...(hit ? { hit } : {}), answer };
}

export const releaseChecks = [
  defineCheck({
    id: "release.returns-at-next-poll",
    family: "release",
    title: "ends a released delivery at once: the next poll returns the event with attempts + 1",
    verifies: ["CAP-REL-1", "CAP-REL-2"],
    feature: "release",
    queue: true,
    async run(ctx: CheckContext) {
      const { nonce, first } = await firstDelivery(ctx);
      const b = ctx.as("b");
      const res = await b.release(first.event.id, { attempts: first.event.attempts });
      if (!expectReleased(ctx, res, "pending", "releasing the delivery that holds the lease")) return;
      const { hit, answer } = await onePoll(ctx, nonce);
      ctx.expect("CAP-REL-2", hit?.id === first.event.id && hit.attempts === first.event.attempts + 1, {
        message: "the first poll after a release without delay did not return the event with attempts + 1",
        expected: `event ${first.event.id} with attempts ${first.event.attempts + 1}`,
        actual: hit ?? "not in the poll",
        exchange: answer,
      });
      await b.ack(first.event.id);
    },
  }),
  defineCheck({
    id: "release.delayed",
    family: "release",
    title:
      "keeps a released event from every poll until availableAt = release + delaySeconds, then returns it",
    verifies: ["CAP-REL-1", "CAP-REL-2", "CAP-REL-3"],
    feature: "release",
    queue: true,
    async run(ctx: CheckContext) {
      const D = 2;
      const { nonce, first } = await firstDelivery(ctx);
      const b = ctx.as("b");
      const sentAt = now();
      const res = await b.release(first.event.id, { attempts: first.event.attempts, delaySeconds: D });
      if (!expectReleased(ctx, res, "pending", "releasing with delaySeconds")) return;
      // availableAt against the kernel's own clock: the lease it gave started at leaseExpiresAt - lease.
      const availableAt = Date.parse((res.body as ReleaseBody).availableAt as string);
      if (first.event.leaseExpiresAt) {
        const claimedAt = Date.parse(first.event.leaseExpiresAt) - leaseMs(ctx);
        const since = availableAt - claimedAt;
        const upper = D * 1000 + (now() - first.sentAt) + tolerance(ctx.timing);
        ctx.expect("CAP-REL-1", since >= D * 1000 - 5 && since <= upper, {
          message: `availableAt is ${since} ms after the claim; a ${D} s delay from the release puts it ${D * 1000}–${Math.round(upper)} ms after`,
          expected: `release time + ${D} s`,
          actual: (res.body as ReleaseBody).availableAt,
          exchange: res,
        });
      }
      const early = await nextDelivery(ctx, nonce, sentAt + D * 1000 - 100);
      const tooEarly = early !== undefined && early.answeredAt < sentAt + D * 1000;
      ctx.expect("CAP-REL-3", !tooEarly, {
        message: `a poll returned the released event ${early ? Math.round(early.answeredAt - sentAt) : 0} ms after a release with a ${D} s delay`,
        expected: `not delivered before ${D * 1000} ms`,
        actual: early?.event,
        ...(early ? { exchange: early.answer } : {}),
      });
      const back = early ?? (await nextDelivery(ctx, nonce, sentAt + D * 1000 + tolerance(ctx.timing)));
      ctx.expect("CAP-REL-2", back?.event.attempts === first.event.attempts + 1, {
        message: "the released event did not come back once its delay had passed, with attempts + 1",
        expected: `redelivery by ${D * 1000 + tolerance(ctx.timing)} ms after the release, attempts ${first.event.attempts + 1}`,
        actual: back?.event ?? "no redelivery",
        ...(back ? { exchange: back.answer } : {}),
      });
      await b.ack(first.event.id);
    },
  }),
  defineCheck({
    id: "release.fenced",
    family: "release",
    title: "answers 409 lease_lost to a release or renew of a delivery that no longer holds the lease",
    verifies: ["CAP-REL-5", "CAP-REL-6", "CAP-REL-7", "CAP-REL-1"],
    feature: "release",
    queue: true,
    async run(ctx: CheckContext) {
      const { first } = await firstDelivery(ctx);
      const { id, attempts } = first.event;
      const b = ctx.as("b");
      ctx.expectError(
        "CAP-REL-5",
        await b.release(id, { attempts: attempts + 1 }),
        409,
        "lease_lost",
        "releasing with the attempts of a delivery that does not exist",
      );
      ctx.expectError(
        "CAP-REL-7",
        await ctx.as("a").release(id, { attempts }),
        404,
        "event_not_found",
        "releasing another agent's event",
      );
      ctx.expectError(
        "CAP-REL-7",
        await b.release(`evt_${ctx.nonce()}`, { attempts: 1 }),
        404,
        "event_not_found",
        "releasing an event that does not exist",
      );
      // A long delay keeps the event out of every other check's way until it is acked below.
      if (!expectReleased(ctx, await b.release(id, { attempts, delaySeconds: 600 }), "pending", "a release"))
        return;
      ctx.expectError(
        "CAP-REL-5",
        await b.release(id, { attempts }),
        409,
        "lease_lost",
        "releasing a delivery a second time",
      );
      if (ctx.has("renew"))
        ctx.expectError(
          "CAP-REL-6",
          await b.renew(id, attempts),
          409,
          "lease_lost",
          "renewing a released delivery",
        );
      const ack = await b.ack(id);
      ctx.setupAnswer(ack, demands.ack, "acking the released event");
      ctx.expectError(
        "CAP-REL-5",
        await b.release(id, { attempts }),
        409,
        "lease_lost",
        "releasing an acked event",
      );
    },
  }),
  defineCheck({
    id: "release.validation",
    family: "release",
    title: "answers 400 validation_failed to a release with bad attempts, delaySeconds or reason",
    verifies: ["CAP-REL-8"],
    feature: "release",
    queue: true,
    async run(ctx: CheckContext) {
      const { first } = await firstDelivery(ctx);
      const { id, attempts } = first.event;
      const b = ctx.as("b");
      const bodies: [string, unknown][] = [
        ["no body fields", {}],
        ["attempts 0", { attempts: 0 }],
        ["attempts as a string", { attempts: String(attempts) }],
        ["delaySeconds -1", { attempts, delaySeconds: -1 }],
        ["delaySeconds 901", { attempts, delaySeconds: 901 }],
        ["delaySeconds 1.5", { attempts, delaySeconds: 1.5 }],
        ["a reason of 501 characters", { attempts, reason: "r".repeat(501) }],
        ["a reason that is a number", { attempts, reason: 5 }],
      ];
      for (const [what, body] of bodies)
        ctx.expectError(
          "CAP-REL-8",
          await b.release(id, body),
          400,
          "validation_failed",
          `a release with ${what}`,
        );
      await b.ack(id);
    },
  }),
  defineCheck({
    id: "release.last-attempt-fails",
    family: "release",
    title: "makes the event failed at once when the released delivery used the last attempt",
    verifies: ["CAP-REL-4", "CAP-REL-1"],
    feature: "release",
    queue: true,
    async run(ctx: CheckContext) {
      const M =
        ctx.timing.maxAttempts ??
        ctx.incomplete("maxAttempts unknown: no /info and no --max-attempts (or fixture maxAttempts)");
      const { nonce, first } = await firstDelivery(ctx);
      const b = ctx.as("b");
      let d: Delivery = first;
      for (let i = 1; i < M; i++) {
        if (
          !expectReleased(
            ctx,
            await b.release(d.event.id, { attempts: d.event.attempts }),
            "pending",
            `release ${i} of ${M}`,
          )
        )
          return;
        const next = await nextDelivery(ctx, nonce, now() + tolerance(ctx.timing));
        if (!next)
          ctx.incomplete(`the event did not come back after release ${i} (see release.returns-at-next-poll)`);
        d = next;
      }
      ctx.expect("CAP-REL-4", d.event.attempts === M, {
        message: "the last delivery does not carry attempts = maxAttempts",
        expected: M,
        actual: d.event.attempts,
        exchange: d.answer,
      });
      const res = await b.release(d.event.id, {
        attempts: d.event.attempts,
        reason: `conformance ${ctx.canaryUrl("release")}`,
      });
      expectReleased(ctx, res, "failed", "releasing the delivery that used the last attempt");
      const after = await nextDelivery(ctx, nonce, now() + tolerance(ctx.timing));
      ctx.expect("CAP-REL-4", after === undefined, {
        message: "an event whose last attempt was released was delivered again",
        expected: "no delivery",
        actual: after?.event,
        ...(after ? { exchange: after.answer } : {}),
      });
      if (after) await b.ack(after.event.id);
    },
  }),
];
