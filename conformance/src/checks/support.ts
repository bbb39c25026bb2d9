/**
 * Small helpers several check families share: the list of CAP routes (for auth and error probes), UTC
 * timestamp and byte-size rules, and the "sentinel" pattern that proves an event was NOT enqueued without
 * waiting for a timeout (events are delivered oldest first, so once a later sentinel arrives, anything
 * enqueued before it would already have been delivered).
 */
import type { Role, WireEvent } from "../agents.js";
import { demands, R } from "../agents.js";
import type { CheckContext } from "../context.js";
import { carries, collect, trigger } from "../queue.js";
import { arrival, now } from "../timing.js";

export interface Route {
  method: string;
  path: string;
  body?: unknown;
  feature?: "info" | "renew" | "decisions" | "message-read" | "release" | "batch-ack" | "cancel";
}

/** Every CAP route, with a syntactically valid body where one is needed. */
export function capRoutes(ctx: CheckContext): Route[] {
  const pod = encodeURIComponent(ctx.cast.shared);
  const routes: Route[] = [
    { method: "GET", path: `${R}/events` },
    { method: "POST", path: `${R}/events/evt_conformance_probe/ack`, body: {} },
    {
      method: "POST",
      path: `${R}/pods/${pod}/messages`,
      body: { content: `conformance probe ${ctx.nonce()}` },
    },
    { method: "GET", path: `${R}/memory` },
    { method: "PUT", path: `${R}/memory`, body: { content: "conformance auth probe" } },
    { method: "POST", path: `${R}/memory/sync`, body: { sections: {}, mode: "patch" } },
    { method: "GET", path: `${R}/info`, feature: "info" },
    {
      method: "POST",
      path: `${R}/events/evt_conformance_probe/renew`,
      body: { attempts: 1 },
      feature: "renew",
    },
    {
      method: "POST",
      path: `${R}/events/evt_conformance_probe/release`,
      body: { attempts: 1 },
      feature: "release",
    },
    {
      method: "POST",
      path: `${R}/events/ack`,
      body: { acks: [{ id: "evt_conformance_probe" }] },
      feature: "batch-ack",
    },
    { method: "GET", path: `${R}/pods/${pod}/messages`, feature: "message-read" },
    { method: "POST", path: `${R}/events/evt_conformance_probe/cancel`, body: {}, feature: "cancel" },
    {
      method: "GET",
      path: `${R}/events/evt_conformance_probe/cancellation?attempts=1`,
      feature: "cancel",
    },
    {
      method: "POST",
      path: `${R}/decisions`,
      feature: "decisions",
      body: {
        podId: ctx.cast.shared,
        decisionClass: "strategy",
        title: "t",
        question: "q",
        options: ["x", "y"],
      },
    },
  ];
  return routes.filter((r) => !r.feature || ctx.has(r.feature));
}

const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]00:00)$/;
export const isUtcTimestamp = (v: unknown): boolean =>
  typeof v === "string" && UTC.test(v) && !Number.isNaN(Date.parse(v));

export const utf8Bytes = (s: string) => Buffer.byteLength(s, "utf8");

/**
 * Make an event for `role` with a fresh sentinel nonce and collect that agent's events up to it. Returns
 * the events that arrived before the sentinel (anything not acked earlier, oldest first), all of which
 * have been acked.
 */
export async function untilSentinel(ctx: CheckContext, role: Role): Promise<WireEvent[]> {
  const sentinel = ctx.nonce();
  await trigger(ctx, role, sentinel);
  const seen: WireEvent[] = [];
  const found = await collect(ctx, role, {
    match: (e) => {
      seen.push(e);
      return carries(e, sentinel);
    },
    count: 1,
    deadline: now() + arrival(ctx.timing),
  });
  if (found.length === 0)
    ctx.incomplete(`setup failed: the sentinel event for ${ctx.cast[role].name} never arrived`);
  const api = ctx.as(role);
  for (const e of found) await api.ack(e.id);
  return seen.filter((e) => !carries(e, sentinel));
}

/** The id of a message a check posts as a step (a thread root, a message to read back), judged as CAP-MSG-1. */
export async function postId(ctx: CheckContext, role: Role, podId: string, body: unknown, step: string) {
  const res = await ctx.as(role).post(podId, body);
  ctx.setupAnswer(res, demands.post, step);
  return (res.body as { id: string }).id;
}

/** Plain-object deep equality for JSON values. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return (
    ka.length === kb.length &&
    ka.every(
      (k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}
