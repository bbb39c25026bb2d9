/**
 * Helpers of the memory checks: read the envelope, write it, sync it — each a step held to the answer the
 * requirement defining it demands, so a broken write is reported as CAP-MEM-8 (or CAP-MEM-14, CAP-MEM-1),
 * not as the requirement the check was about to judge.
 */
import { type Demand, demands, type Role } from "../agents.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";

export interface Section {
  content?: unknown;
  visibility?: unknown;
  updatedAt?: unknown;
  byteSize?: unknown;
}
export interface Envelope {
  content?: unknown;
  sourceRuntime?: unknown;
  schemaVersion?: unknown;
  sections: Record<string, unknown> & {
    daily?: { date: string; content: string; visibility?: string }[];
    relationships?: { otherInstanceId: string; notes: string; visibility?: string; updatedAt?: string }[];
  };
}

/** Read the envelope as `role`: a setup step held to CAP-MEM-1's 200 envelope. */
export async function readMemory(ctx: CheckContext, role: Role = "a"): Promise<Envelope> {
  const res = await ctx.as(role).getMemory();
  ctx.about(res);
  ctx.setupAnswer(res, demands.getMemory, `reading ${ctx.cast[role].name}'s memory`);
  return res.body as Envelope;
}

export const section = (env: Envelope, key: string) => env.sections[key] as Section | undefined;

/**
 * PUT memory as `role` (default `a`): a setup step held to CAP-MEM-8's `200 {ok: true, schemaVersion: 2}`.
 * `refusalBreaks` names the check's own requirement a refusal breaks, when the body carries what that
 * requirement says to accept (client-stamped values CAP-MEM-4 says to discard, not reject).
 */
export async function put(
  ctx: CheckContext,
  body: unknown,
  o: { role?: Role; refusalBreaks?: string } = {},
): Promise<Answer> {
  const res = await ctx.as(o.role ?? "a").putMemory(body);
  if (o.refusalBreaks) ctx.assertAccepted(o.refusalBreaks, res, "writing memory", demands.putMemory);
  else ctx.setupAnswer(res, demands.putMemory, "writing memory");
  return res;
}

export interface SyncAnswer {
  res: Answer;
  deduped: boolean;
}

/**
 * POST memory/sync as `a`: a setup step held to CAP-MEM-14's `200 {ok: true, schemaVersion: 2}` — or to
 * another requirement's demand of the same answer (a repeat's is CAP-MEM-13's).
 */
export async function sync(
  ctx: CheckContext,
  body: unknown,
  demand: Demand = demands.sync,
): Promise<SyncAnswer> {
  const res = await ctx.as("a").sync(body);
  ctx.setupAnswer(res, demand, "syncing memory");
  return { res, deduped: (res.body as { deduped?: unknown }).deduped === true };
}
