/**
 * What the `cancel` checks do as the fixture's human, on the kernel's own routes outside CAP (named by the
 * fixture, the reference kernel's by default): cancel an event of a pod, set an installation's
 * double-texting policy, read the operator's queue view of a pod. A route that is not there, or a token it
 * refuses, makes the check incomplete — the fixture names these routes, CAP does not — never failed.
 */
import type { Role } from "../agents.js";
import type { FixtureHuman } from "../config/fixture.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";

export type DoubleTexting = "enqueue" | "interrupt";

/** The fixture's human, or the check stops incomplete saying so. */
export function fixtureHuman(ctx: CheckContext, why: string): FixtureHuman {
  return (
    ctx.run.settings.fixture.human ??
    ctx.incomplete(`setup failed: the fixture has no human (human.token) to ${why}`)
  );
}

const fill = (path: string, vars: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (whole, k: string) =>
    k in vars ? encodeURIComponent(vars[k] as string) : whole,
  );

/** Whether an answer says the human's route or token is not usable here (rather than judging the kernel). */
function unusable(res: Answer): boolean {
  const code = (res.body as { code?: unknown } | undefined)?.code;
  return res.status === 401 || code === "route_not_found" || res.status === 405;
}

function incompleteIfUnusable(ctx: CheckContext, res: Answer, what: string): void {
  if (unusable(res) || res.status === 429 || res.status === 503)
    ctx.incomplete(
      `setup failed: ${what} (outside CAP) answered HTTP ${res.status} ${res.exchange.responseBody.slice(0, 200)}`,
    );
}

/** Cancel `eventId` as the human through the pod's cancel route; the answer is the caller's to judge. */
export async function humanCancel(
  ctx: CheckContext,
  podId: string,
  eventId: string,
  body?: { reason?: string },
): Promise<Answer> {
  const human = fixtureHuman(ctx, "cancel as");
  const res = await ctx.send({
    method: "POST",
    path: fill(human.cancelPath, { podId, eventId }),
    ...(body !== undefined ? { body } : {}),
    token: human.token,
    as: "human",
  });
  incompleteIfUnusable(ctx, res, `cancelling as the fixture's human (${human.cancelPath})`);
  return res;
}

/** Set the double-texting policy of agent `role`'s installation in the shared pod, as the human. */
export async function setDoubleTexting(ctx: CheckContext, role: Role, policy: DoubleTexting): Promise<void> {
  const human = fixtureHuman(ctx, "set an installation's double-texting policy as");
  const path = fill(human.installationPath, { podId: ctx.cast.shared, agentName: ctx.cast[role].name });
  const res = await ctx.send({
    method: "PATCH",
    path,
    body: { doubleTexting: policy },
    token: human.token,
    as: "human",
  });
  const shown = (res.body as { doubleTexting?: unknown } | undefined)?.doubleTexting;
  if (res.status < 200 || res.status >= 300 || shown !== policy)
    ctx.incomplete(
      `setup failed: setting ${ctx.cast[role].name}'s doubleTexting to ${policy} as the fixture's human (PATCH ${human.installationPath}, outside CAP) answered HTTP ${res.status} ${res.exchange.responseBody.slice(0, 200)}`,
    );
}

/** An event as the operator's queue view lists it (the fields the checks read). */
export interface QueuedEvent {
  id: string;
  state?: unknown;
  cancelReason?: unknown;
  cancelledAt?: unknown;
  cancelledBy?: { kind?: unknown; id?: unknown } | null;
  [k: string]: unknown;
}

/**
 * The operator's view of the shared pod's queue, as the human, with the answer behind it; undefined when
 * the fixture has no human or the view is not there (the caller notes what it could not see).
 */
export async function queueView(
  ctx: CheckContext,
): Promise<{ events: Map<string, QueuedEvent>; answer: Answer } | undefined> {
  const human = ctx.run.settings.fixture.human;
  if (!human) return undefined;
  const answer = await ctx.send({
    method: "GET",
    path: fill(human.queuePath, { podId: ctx.cast.shared }),
    query: { limit: 1000 },
    token: human.token,
    as: "human",
  });
  const agents = (answer.body as { agents?: { events?: QueuedEvent[] }[] } | undefined)?.agents;
  if (answer.status !== 200 || !Array.isArray(agents)) return undefined;
  const events = new Map<string, QueuedEvent>();
  for (const a of agents) for (const e of a.events ?? []) if (typeof e?.id === "string") events.set(e.id, e);
  return { events, answer };
}
