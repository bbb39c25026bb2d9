/**
 * Trace headers the kernel must read with care (`trace-context`): a malformed, oversized or repeated
 * `traceparent` changes no answer — not a post's, not any other request's — and never reaches the event;
 * `tracestate` counts only beside a valid traceparent, is kept verbatim when valid and at most 512 bytes,
 * and is otherwise truncated by whole members or dropped, never passed on malformed.
 */
import { randomBytes } from "node:crypto";
import { demands, R, type WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Feature } from "../features.js";
import type { Answer } from "../http/exchange.js";
import { firstDelivery } from "./leases.js";
import { utf8Bytes } from "./support.js";
import { freshTraceparent, members, traceContextOf, tracestateMembers } from "./trace-context.js";
import { agentPost, eventsFor, showTrace } from "./trace-support.js";

const hex = (n: number) => randomBytes(n).toString("hex");

/** Traceparent values W3C Trace Context level 1 refuses, each with what is wrong with it. */
export function malformedTraceparents(): [string, string][] {
  const t = hex(16);
  const p = hex(8);
  return [
    ["uppercase hex", `00-${t.toUpperCase()}-${p.toUpperCase()}-01`],
    ["an all-zero trace-id", `00-${"0".repeat(32)}-${p}-01`],
    ["an all-zero parent-id", `00-${t}-${"0".repeat(16)}-01`],
    ["version ff", `ff-${t}-${p}-01`],
    ["version 00 with a tail", `00-${t}-${p}-01-extra`],
    ["a short trace-id", `00-${t.slice(2)}-${p}-01`],
    ["a non-hex character", `00-${t.slice(1)}g-${p}-01`],
    ["no dashes", `00${t}${p}01`],
    ["two traceparents in one header (a repeated header)", `00-${t}-${p}-01, 00-${hex(16)}-${hex(8)}-01`],
    ["4,000 characters", `00-${t}-${p}-01-${"a".repeat(3950)}`],
  ];
}

/** The answer without the parts that differ between any two requests (ids, times): status, error code, keys. */
const shapeOf = (a: Answer) => {
  const body = a.body as Record<string, unknown> | undefined;
  return {
    status: a.status,
    ...(typeof body?.code === "string" ? { code: body.code } : {}),
    keys: body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body).sort() : typeof body,
  };
};
const sameShape = (x: Answer, y: Answer) => JSON.stringify(shapeOf(x)) === JSON.stringify(shapeOf(y));

/** Poll as c and ack what comes (c's queue is normally empty): the answer is what is compared. */
async function pollAndAck(ctx: CheckContext, headers: Record<string, string>): Promise<Answer> {
  const c = ctx.as("c");
  const res = await c.poll({ limit: 10 }, { headers });
  const events = (res.body as { events?: WireEvent[] } | undefined)?.events;
  for (const e of res.status === 200 && Array.isArray(events) ? events : []) await c.ack(e.id);
  return res;
}

/** The event carries nothing of a refused traceparent: not the value, not its trace-id read case-blind. */
function carriesBad(e: WireEvent, bad: string): boolean {
  const tp = traceContextOf(e)?.traceparent;
  if (tp === undefined) return false;
  const ids = bad.toLowerCase().match(/[0-9a-f]{32}/g) ?? [];
  return tp === bad || (typeof tp === "string" && ids.some((id) => tp.includes(id) && !/^0+$/.test(id)));
}

export const traceHeaderChecks = [
  defineCheck({
    id: "trace.malformed-post",
    family: "trace",
    title:
      "answers a post with a malformed, oversized or repeated traceparent as without it, and gives its event nothing of it",
    verifies: ["CAP-TRACE-1"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const clean = await agentPost(ctx, {});
      const cases = malformedTraceparents();
      const posts = [];
      for (const [what, traceparent] of cases) {
        const post = await agentPost(ctx, { traceparent }, { judged: true });
        ctx.expect("CAP-TRACE-1", sameShape(post.answer, clean.answer), {
          message: `a post with a traceparent of ${what} answered otherwise than the same post without it`,
          expected: shapeOf(clean.answer),
          actual: `HTTP ${post.answer.status} ${post.answer.exchange.responseBody.slice(0, 300)}`,
          exchange: post.answer,
        });
        if (post.answer.status === 201) posts.push({ what, traceparent, nonce: post.nonce });
      }
      const events = await eventsFor(ctx, "b", [clean.nonce, ...posts.map((p) => p.nonce)]);
      for (const [i, p] of posts.entries()) {
        const e = events[i + 1] as WireEvent;
        ctx.expect("CAP-TRACE-1", !carriesBad(e, p.traceparent), {
          message: `the event of a post with a traceparent of ${p.what} carries it`,
          expected: "no traceContext, or one of the kernel's own making",
          actual: showTrace(e),
        });
      }
    },
  }),
  defineCheck({
    id: "trace.malformed-any-request",
    family: "trace",
    title:
      "answers polls, acks, memory, /info and refused requests with malformed trace headers exactly as without them, echoing none",
    verifies: ["CAP-TRACE-1"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const marker = `cc${hex(6)}`;
      const bad = {
        traceparent: `00-${marker.toUpperCase()}-zz-01`,
        tracestate: `${marker}==,=`,
        baggage: `${marker}=${"b".repeat(4000)}`,
      };
      const [a, c] = [ctx.as("a"), ctx.as("c")];
      const unknown = `evt_${hex(6)}`;
      const requests: [string, (h: Record<string, string>) => Promise<Answer>][] = [
        ["a poll", (h) => pollAndAck(ctx, h)],
        ["a memory read", (h) => c.bare("GET", `${R}/memory`, { headers: h })],
        ["an ack of an unknown event", (h) => c.ack(unknown, undefined, { headers: h })],
        ["a post with an invalid body", (h) => a.post(ctx.cast.shared, { content: 5 }, { headers: h })],
        [
          "a post into a pod the agent is not in",
          (h) => c.post(ctx.cast.shared, { content: "x" }, { headers: h }),
        ],
        [
          "a request without a token",
          (h) => ctx.send({ method: "GET", path: `${R}/events`, headers: h, as: "no-header" }),
        ],
      ];
      const optional: [Feature, string, (h: Record<string, string>) => Promise<Answer>][] = [
        ["info", "/info", (h) => c.bare("GET", `${R}/info`, { headers: h })],
        ["renew", "a renew of an unknown event", (h) => c.renew(unknown, 1, { headers: h })],
        [
          "release",
          "a release of an unknown event",
          (h) => c.release(unknown, { attempts: 1 }, { headers: h }),
        ],
        [
          "batch-ack",
          "a batch ack of an unknown event",
          (h) => c.ackMany({ acks: [{ id: unknown }] }, { headers: h }),
        ],
        ["cancel", "a cancel of an unknown event", (h) => c.cancel(unknown, undefined, { headers: h })],
      ];
      for (const [feature, what, send] of optional) if (ctx.has(feature)) requests.push([what, send]);
      for (const [what, send] of requests) {
        const plain = await send({});
        const traced = await send(bad);
        ctx.expect(
          "CAP-TRACE-1",
          sameShape(traced, plain) && !traced.exchange.responseBody.includes(marker),
          {
            message: `${what} with a malformed traceparent and tracestate and a 4 KB baggage answered otherwise than without them`,
            expected: shapeOf(plain),
            actual: `HTTP ${traced.status} ${traced.exchange.responseBody.slice(0, 300)}`,
            exchange: traced,
          },
        );
      }
      // A delivery held by b, acked with the same headers: the ack settles it as any ack would.
      const { first } = await firstDelivery(ctx);
      const ack = await ctx.as("b").ack(first.event.id, undefined, { headers: bad });
      ctx.expect("CAP-TRACE-1", ack.status === 200 && (ack.body as { ok?: unknown })?.ok === true, {
        message:
          "the ack of a held delivery with malformed trace headers answered otherwise than a plain ack",
        expected: demands.ack.shows,
        actual: `HTTP ${ack.status} ${ack.exchange.responseBody.slice(0, 300)}`,
        exchange: ack,
      });
    },
  }),
  defineCheck({
    id: "trace.tracestate-kept",
    family: "trace",
    title:
      "keeps a valid tracestate of up to 512 bytes verbatim beside a valid traceparent, and none beside a missing or malformed one",
    verifies: ["CAP-TRACE-4"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const short = `${members(2).join(",")},tenant${hex(2)}@vendor=a value/with spaces`;
      const full = members(16, 31).join(",");
      // 16 members of 31 bytes and 15 commas are 511 bytes: one more byte in the last value makes 512.
      const exact = `${full}v`;
      const lone = members(2);
      const beside = members(2);
      const cases: [string, Record<string, string>, string | string[]][] = [
        [
          "a tracestate of three members, one of them tenant@system",
          { traceparent: freshTraceparent(), tracestate: short },
          short,
        ],
        ["a tracestate of exactly 512 bytes", { traceparent: freshTraceparent(), tracestate: exact }, exact],
        ["a tracestate without a traceparent", { tracestate: lone.join(",") }, lone],
        [
          "a tracestate beside a malformed traceparent",
          { traceparent: `00-${hex(16)}-${hex(4)}-01`, tracestate: beside.join(",") },
          beside,
        ],
      ];
      const posts = [];
      for (const [, headers] of cases) posts.push(await agentPost(ctx, headers));
      const events = await eventsFor(
        ctx,
        "b",
        posts.map((p) => p.nonce),
      );
      for (const [i, [what, , want]] of cases.entries()) {
        const e = events[i] as WireEvent;
        const got = traceContextOf(e)?.tracestate;
        const verbatim = typeof want === "string";
        // Beside no valid traceparent, none of the post's members may show (a kernel's own may).
        const ok = verbatim
          ? got === want
          : !want.some((m) => typeof got === "string" && got.includes(m.split("=")[0] as string));
        ctx.expect("CAP-TRACE-4", ok, {
          message: `the event of a post with ${what} ${verbatim ? "does not carry it verbatim" : "carries it"}`,
          expected: verbatim ? { tracestate: want } : "no tracestate of the post's",
          actual: showTrace(e),
        });
      }
    },
  }),
  defineCheck({
    id: "trace.tracestate-bounded",
    family: "trace",
    title:
      "truncates a tracestate over 512 bytes or 32 members by whole members or drops it, and never passes on a malformed one",
    verifies: ["CAP-TRACE-4"],
    feature: "trace-context",
    queue: true,
    async run(ctx: CheckContext) {
      const long = members(20, 30);
      const many = members(33, 12);
      const good = members(3);
      const cases: [string, string[], string][] = [
        ["a tracestate of 20 members and 619 bytes", long, long.join(",")],
        ["a tracestate of 33 members", many, many.join(",")],
        ["a tracestate with a malformed member", good, [good[0], "Bad Key=1", good[1], good[2]].join(",")],
        [
          "a tracestate with a member whose value holds =",
          good,
          [good[0], `${good[1]}=x`, good[2]].join(","),
        ],
      ];
      const posts = [];
      for (const [, , tracestate] of cases)
        posts.push(await agentPost(ctx, { traceparent: freshTraceparent(), tracestate }));
      const events = await eventsFor(
        ctx,
        "b",
        posts.map((p) => p.nonce),
      );
      for (const [i, [what, sent, raw]] of cases.entries()) {
        const e = events[i] as WireEvent;
        const got = traceContextOf(e)?.tracestate;
        const kept = got === undefined ? [] : tracestateMembers(got);
        // Whole members the post sent (well-formed ones), in the order sent, within 512 bytes and 32 members.
        const mine = kept?.filter((m) => sent.some((s) => s.split("=")[0] === m.split("=")[0]));
        const ok =
          got === undefined ||
          (kept !== undefined &&
            typeof got === "string" &&
            got !== raw &&
            utf8Bytes(got) <= 512 &&
            (mine ?? []).every(
              (m, j, all) =>
                sent.includes(m) && (j === 0 || sent.indexOf(m) > sent.indexOf(all[j - 1] as string)),
            ));
        ctx.expect("CAP-TRACE-4", ok, {
          message: `the event of a post with ${what} carries a tracestate that is not its whole members within 512 bytes`,
          expected:
            "no tracestate, or whole well-formed members of the one sent, in order, at most 512 bytes and 32 members",
          actual: showTrace(e),
        });
      }
    },
  }),
];
