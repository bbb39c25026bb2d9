/**
 * Discovery: `/info` describes the kernel, its numbers are the ones it applies, and `features` lists
 * exactly what it implements (an unadvertised optional route must not exist).
 */

import { randomBytes } from "node:crypto";
import { R } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { eventsOf } from "../queue.js";
import { now } from "../timing.js";

const numbers = ["leaseSeconds", "maxAttempts", "maxLimit", "maxWaitSeconds", "maxMessageBytes"] as const;

export const infoChecks = [
  defineCheck({
    id: "info.discovery",
    family: "info",
    title: 'answers GET /info with protocol "cap", version "1", its limits and its features',
    verifies: ["CAP-INFO-1"],
    feature: "info",
    async run(ctx: CheckContext) {
      const res = await ctx.as("a").info();
      const body = (res.body ?? {}) as Record<string, unknown>;
      ctx.assertStatus("CAP-INFO-1", res, 200, "GET /info");
      ctx.expect("CAP-INFO-1", body.protocol === "cap" && body.version === "1", {
        message: "protocol and version",
        expected: { protocol: "cap", version: "1" },
        actual: { protocol: body.protocol, version: body.version },
        exchange: res,
      });
      for (const k of numbers)
        ctx.expect("CAP-INFO-1", Number.isInteger(body[k]), {
          message: `${k} is not an integer`,
          actual: body[k],
          exchange: res,
        });
      ctx.expect(
        "CAP-INFO-1",
        Array.isArray(body.features) && body.features.every((f) => typeof f === "string"),
        {
          message: "features is not a list of strings",
          actual: body.features,
          exchange: res,
        },
      );
    },
  }),
  defineCheck({
    id: "info.values-applied",
    family: "info",
    title: "applies the maxLimit and maxWaitSeconds it reports",
    verifies: ["CAP-INFO-2"],
    feature: "info",
    queue: true,
    async run(ctx: CheckContext) {
      const info = ctx.info ?? ctx.incomplete("/info could not be read");
      const longPoll = Array.isArray(info.features) && info.features.includes("long-poll");
      ctx.expect("CAP-INFO-2", info.maxWaitSeconds === (longPoll ? 25 : 0), {
        message: "maxWaitSeconds must be 25 with long-poll and 0 without",
        expected: longPoll ? 25 : 0,
        actual: info.maxWaitSeconds,
      });
      const max = Number(info.maxLimit);
      const b = ctx.as("b");
      const ok = await b.poll({ limit: max });
      ctx.expectStatus("CAP-INFO-2", ok, 200, `a poll with limit=maxLimit (${max})`);
      if (ok.status === 200) for (const e of eventsOf(ctx, ok)) await b.ack(e.id);
      const over = await b.poll({ limit: max + 1 });
      ctx.expectStatus("CAP-INFO-2", over, 400, `a poll with limit=maxLimit+1 (${max + 1})`);
    },
  }),
  defineCheck({
    id: "info.features-honest",
    family: "info",
    title: "does not implement an optional feature it leaves out of features",
    verifies: ["CAP-INFO-3"],
    feature: "info",
    queue: true,
    async run(ctx: CheckContext) {
      const listed = new Set((ctx.info?.features as string[] | undefined) ?? []);
      const a = ctx.as("a");
      const probes: [string, () => Promise<import("../http/exchange.js").Answer>][] = [
        [
          "renew",
          () =>
            a.bare("POST", `${R}/events/evt_${randomBytes(6).toString("hex")}/renew`, {
              body: { attempts: 1 },
            }),
        ],
        [
          "release",
          () =>
            a.release(`evt_${randomBytes(6).toString("hex")}`, {
              attempts: 1,
            }),
        ],
        ["batch-ack", () => a.ackMany({ acks: [{ id: `evt_${randomBytes(6).toString("hex")}` }] })],
        ["decisions", () => a.bare("POST", `${R}/decisions`, { body: {} })],
        ["message-read", () => a.read(ctx.cast.shared, { limit: 1 })],
        ["cancel", () => a.cancel(`evt_${randomBytes(6).toString("hex")}`)],
        ["cancel", () => a.cancellation(`evt_${randomBytes(6).toString("hex")}`, { attempts: 1 })],
      ];
      for (const [feature, probe] of probes) {
        if (listed.has(feature)) continue;
        const res = await probe();
        ctx.expectError(
          "CAP-INFO-3",
          res,
          404,
          "route_not_found",
          `the route of "${feature}", which /info does not list`,
        );
      }
      if (!listed.has("long-poll")) {
        const t0 = now();
        const res = await ctx.as("b").poll({ waitSeconds: 1 });
        for (const e of eventsOf(ctx, res)) await ctx.as("b").ack(e.id);
        ctx.expect("CAP-INFO-3", now() - t0 < 900, {
          message: "a poll with waitSeconds=1 was held, but /info does not list long-poll",
          actual: `${Math.round(now() - t0)} ms`,
          exchange: res,
        });
      }
      if (!listed.has("idempotency-key")) {
        const key = `conformance-${randomBytes(8).toString("hex")}`;
        const body = { content: `conformance idempotency probe ${ctx.nonce()}` };
        const x = await a.post(ctx.cast.shared, body, { headers: { "idempotency-key": key } });
        const y = await a.post(ctx.cast.shared, body, { headers: { "idempotency-key": key } });
        ctx.expect("CAP-INFO-3", x.exchange.responseBody !== y.exchange.responseBody, {
          message: "Idempotency-Key is honoured, but /info does not list idempotency-key",
          actual: [x.exchange.responseBody, y.exchange.responseBody],
          exchange: y,
        });
      }
    },
  }),
];
