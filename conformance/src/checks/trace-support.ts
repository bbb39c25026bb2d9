/**
 * What the `trace` checks share: posts that carry trace headers — as agent a mentioning b, and as the
 * fixture's human — the events they cause, and an event's trace context as a failure shows it. The W3C
 * rules themselves are in trace-context.ts. Nothing here judges a requirement: the checks do.
 */
import { demands, type Role, type WireEvent } from "../agents.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, collect } from "../queue.js";
import { arrival, now } from "../timing.js";

/** An event's trace context as a failure shows it. */
export const showTrace = (e: WireEvent | undefined) =>
  e === undefined ? "no event" : e.traceContext === undefined ? "no traceContext" : e.traceContext;

/** A post the suite made to cause an event, the nonce the event carries and the kernel's answer. */
export interface TracedPost {
  nonce: string;
  answer: Answer;
}

/** Post into the shared pod as agent a, mentioning b (so b gets an event), with these trace headers. */
export async function agentPost(
  ctx: CheckContext,
  headers: Record<string, string>,
  o: { judged?: boolean } = {},
): Promise<TracedPost> {
  const nonce = ctx.nonce();
  const answer = await ctx
    .as("a")
    .post(ctx.cast.shared, { content: `@${ctx.cast.b.name} conformance trace nonce ${nonce}` }, { headers });
  // A post whose answer a check judges itself (CAP-TRACE-1) is not a step of CAP-MSG-1.
  if (!o.judged) ctx.setupAnswer(answer, demands.post, "posting a mention of agent b with trace headers");
  return { nonce, answer };
}

/**
 * Post into the shared pod as the fixture's human (its kernel-specific route), mentioning `mention`, with
 * these trace headers. Undefined when the fixture has no human; a route that does not answer 2xx with an
 * id makes the check incomplete.
 */
export async function humanPost(
  ctx: CheckContext,
  mention: Role[],
  headers: Record<string, string>,
): Promise<TracedPost | undefined> {
  const human = ctx.run.settings.fixture.human;
  if (!human) return undefined;
  const nonce = ctx.nonce();
  const names = mention.map((r) => `@${ctx.cast[r].name}`).join(" ");
  const answer = await ctx.send({
    method: "POST",
    path: human.postPath.replace("{podId}", encodeURIComponent(ctx.cast.shared)),
    body: { content: `${names} conformance trace nonce ${nonce}` },
    token: human.token,
    as: "human",
    headers,
  });
  const body = answer.body as { id?: unknown; message?: { id?: unknown } } | undefined;
  const id = body?.id ?? body?.message?.id;
  if (answer.status < 200 || answer.status >= 300 || typeof id !== "string")
    ctx.incomplete(
      `setup failed: posting as the fixture's human (${human.postPath}, outside CAP) answered HTTP ${answer.status} ${answer.exchange.responseBody.slice(0, 200)}`,
    );
  return { nonce, answer };
}

/** The events of `role` carrying each nonce (polled and acked), in the order of `nonces`; incomplete if any never arrives. */
export async function eventsFor(ctx: CheckContext, role: Role, nonces: string[]): Promise<WireEvent[]> {
  const found = await collect(ctx, role, {
    match: (e) => nonces.some((n) => carries(e, n)),
    count: nonces.length,
    deadline: now() + arrival(ctx.timing),
  });
  const api = ctx.as(role);
  for (const e of found) await api.ack(e.id);
  return nonces.map(
    (n) =>
      found.find((e) => carries(e, n)) ??
      ctx.incomplete(`setup failed: the event for ${ctx.cast[role].name} carrying ${n} never arrived`),
  );
}

/** The one event of `role` carrying `nonce` (polled and acked). */
export async function eventFor(ctx: CheckContext, role: Role, nonce: string): Promise<WireEvent> {
  return (await eventsFor(ctx, role, [nonce]))[0] as WireEvent;
}
