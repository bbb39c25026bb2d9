/**
 * Events as a driver sees them: the fields every event carries, `attempts` on first delivery, `limit`,
 * per-agent oldest-first order and the validation of the poll's parameters.
 */
import type { WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, collect, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval } from "../timing.js";
import { isUtcTimestamp } from "./support.js";

/** Trigger `n` events for b, one after another (each post answered before the next). */
async function triggerMany(ctx: CheckContext, n: number): Promise<string[]> {
  const nonces: string[] = [];
  for (let i = 0; i < n; i++) {
    const nonce = ctx.nonce();
    nonces.push(nonce);
    await trigger(ctx, "b", nonce);
  }
  return nonces;
}

const nonceOf = (e: WireEvent, nonces: string[]) => nonces.find((n) => carries(e, n));

export const eventChecks = [
  defineCheck({
    id: "events.first-delivery-shape",
    family: "events",
    title: "delivers a new event with every required field, attempts 1, a lease expiry and UTC timestamps",
    verifies: ["CAP-EVT-3", "CAP-EVT-5", "CAP-EVT-7", "CAP-COMPAT-2", "CAP-COMPAT-5"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      await trigger(ctx, "b", nonce);
      let exchange: Answer | undefined;
      const [e] = await collect(ctx, "b", {
        match: (x) => carries(x, nonce),
        count: 1,
        deadline: now() + arrival(ctx.timing),
        onPoll: (res) => {
          if (eventsOf(ctx, res).some((x) => carries(x, nonce))) exchange = res;
        },
      });
      if (!e) ctx.incomplete("the triggered event never arrived");
      for (const field of ["id", "type", "podId", "payload", "attempts", "createdAt"])
        ctx.expect("CAP-EVT-3", e[field] !== undefined && e[field] !== null, {
          message: `the event has no "${field}"`,
          actual: e,
          ...(exchange ? { exchange } : {}),
        });
      ctx.expect(
        "CAP-EVT-3",
        typeof e.payload === "object" && e.payload !== null && !Array.isArray(e.payload),
        {
          message: "payload is not an object",
          actual: e.payload,
          ...(exchange ? { exchange } : {}),
        },
      );
      ctx.expect("CAP-EVT-5", e.attempts === 1, {
        message: "a first delivery must carry attempts 1",
        expected: 1,
        actual: e.attempts,
        ...(exchange ? { exchange } : {}),
      });
      ctx.expect("CAP-EVT-7", typeof e.leaseExpiresAt === "string", {
        message: "the event carries no leaseExpiresAt",
        actual: e,
      });
      for (const field of ["createdAt", "leaseExpiresAt"] as const)
        if (e[field] !== undefined)
          ctx.expect("CAP-COMPAT-2", isUtcTimestamp(e[field]), {
            message: `${field} is not an RFC 3339 date-time in UTC`,
            actual: e[field],
          });
      if ("_id" in e)
        ctx.expect("CAP-COMPAT-5", e._id === e.id, {
          message: "_id differs from id",
          expected: e.id,
          actual: e._id,
        });
      await ctx.as("b").ack(e.id);
    },
  }),
  defineCheck({
    id: "events.limit-honoured",
    family: "events",
    title: "returns at most `limit` events per poll, each id distinct",
    verifies: ["CAP-EVT-1", "CAP-EVT-4"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonces = await triggerMany(ctx, 3);
      const found = new Map<string, WireEvent>();
      const deadline = now() + arrival(ctx.timing);
      const b = ctx.as("b");
      for (let i = 0; found.size < 3 && now() < deadline; i++) {
        const limit = i === 0 ? 1 : 2;
        const res = await b.poll({ limit });
        const events = eventsOf(ctx, res);
        ctx.expect("CAP-EVT-1", events.length <= limit, {
          message: `a poll with limit=${limit} returned ${events.length} events`,
          expected: `at most ${limit}`,
          actual: events.length,
          exchange: res,
        });
        for (const e of events) {
          const n = nonceOf(e, nonces);
          if (n) {
            ctx.expect("CAP-EVT-4", !found.has(n) || found.get(n)?.id === e.id, {
              message: "one event came back under two ids",
              actual: [found.get(n)?.id, e.id],
            });
            found.set(n, e);
          }
          await b.ack(e.id);
        }
        if (events.length === 0) await pause(pollInterval(ctx.timing));
      }
      if (found.size < 3) ctx.incomplete(`only ${found.size} of 3 triggered events arrived`);
      const ids = new Set([...found.values()].map((e) => e.id));
      ctx.expect("CAP-EVT-4", ids.size === 3, { message: "three events share an id", actual: [...ids] });
    },
  }),
  defineCheck({
    id: "events.oldest-first",
    family: "events",
    title: "delivers an agent's ready events oldest first, within a poll and across polls",
    verifies: ["CAP-EVT-8"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonces = await triggerMany(ctx, 4);
      const order: string[] = [];
      const found = await collect(ctx, "b", {
        match: (e) => nonceOf(e, nonces) !== undefined,
        count: 4,
        limit: 3,
        deadline: now() + arrival(ctx.timing),
        onPoll: (res) => {
          for (const e of eventsOf(ctx, res)) {
            const n = nonceOf(e, nonces);
            if (n) order.push(n);
          }
        },
      });
      for (const e of found) await ctx.as("b").ack(e.id);
      if (found.length < 4) ctx.incomplete(`only ${found.length} of 4 triggered events arrived`);
      ctx.expect("CAP-EVT-8", order.join() === nonces.join(), {
        message: "events were not delivered in the order they were enqueued",
        expected: nonces.map((_, i) => `#${i + 1}`).join(", "),
        actual: order.map((n) => `#${nonces.indexOf(n) + 1}`).join(", "),
      });
    },
  }),
  defineCheck({
    id: "events.poll-parameters",
    family: "events",
    title: "accepts limit 1–50 and waitSeconds 0–25, and answers anything else with 400 validation_failed",
    verifies: ["CAP-EVT-2", "CAP-ERR-5"],
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      for (const query of [{ limit: 1 }, { limit: 50 }, { waitSeconds: 0 }, {}]) {
        const res = await b.poll(query);
        ctx.expectStatus("CAP-EVT-2", res, 200, `a poll with ${JSON.stringify(query)} is valid`);
        for (const e of eventsOf(ctx, res)) await b.ack(e.id);
      }
      const bad = [
        { limit: 0 },
        { limit: 51 },
        { limit: 2.5 },
        { limit: "ten" },
        { waitSeconds: -1 },
        { waitSeconds: 26 },
        { waitSeconds: "x" },
      ];
      for (const query of bad) {
        const res = await b.poll(query);
        ctx.expectError("CAP-EVT-2", res, 400, "validation_failed", `a poll with ${JSON.stringify(query)}`);
        const errors = (res.body as { details?: { errors?: unknown } } | undefined)?.details?.errors;
        ctx.expect(
          "CAP-ERR-5",
          Array.isArray(errors) &&
            errors.length > 0 &&
            errors.every((x) => typeof x?.path === "string" && typeof x?.message === "string"),
          {
            message: "validation_failed without details.errors [{path, message}]",
            actual: res.body,
            exchange: res,
          },
        );
      }
    },
  }),
];
