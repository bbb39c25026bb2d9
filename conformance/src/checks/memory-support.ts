/** Helpers of the memory checks: read the envelope (asserting its basic shape) and write with a status check. */
import type { Role } from "../agents.js";
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

export async function readMemory(
  ctx: CheckContext,
  requirement: string,
  role: Role = "a",
): Promise<Envelope> {
  const res = await ctx.as(role).getMemory();
  ctx.about(res);
  const body = res.body as Envelope | undefined;
  ctx.assert(
    requirement,
    res.status === 200 && typeof body?.sections === "object" && body.sections !== null,
    {
      message: "reading memory",
      expected: "HTTP 200 {content, sections, schemaVersion: 2}",
      actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
      exchange: res,
    },
  );
  return body as Envelope;
}

export const section = (env: Envelope, key: string) => env.sections[key] as Section | undefined;

/** PUT memory as `role` and require `200 {ok: true, schemaVersion: 2}`. */
export async function put(
  ctx: CheckContext,
  requirement: string,
  body: unknown,
  role: Role = "a",
): Promise<Answer> {
  const res = await ctx.as(role).putMemory(body);
  const b = res.body as { ok?: unknown; schemaVersion?: unknown } | undefined;
  ctx.assert(requirement, res.status === 200 && b?.ok === true && b.schemaVersion === 2, {
    message: "writing memory",
    expected: 'HTTP 200 {"ok": true, "schemaVersion": 2}',
    actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
    exchange: res,
  });
  return res;
}

export interface SyncAnswer {
  res: Answer;
  deduped: boolean;
}

/** POST memory/sync as `a` and require `200 {ok: true, schemaVersion: 2, deduped?}`. */
export async function sync(ctx: CheckContext, requirement: string, body: unknown): Promise<SyncAnswer> {
  const res = await ctx.as("a").sync(body);
  const b = res.body as { ok?: unknown; schemaVersion?: unknown; deduped?: unknown } | undefined;
  ctx.assert(requirement, res.status === 200 && b?.ok === true && b.schemaVersion === 2, {
    message: "syncing memory",
    expected: 'HTTP 200 {"ok": true, "schemaVersion": 2, …}',
    actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
    exchange: res,
  });
  return { res, deduped: b?.deduped === true };
}
