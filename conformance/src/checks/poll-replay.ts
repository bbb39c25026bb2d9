/**
 * Retry-safe polls (`poll-replay`): a poll that repeats a `pollId` while its deliveries are held answers
 * those same deliveries and claims nothing new, on whichever replica it lands; once they are gone the
 * `pollId` means nothing; a `pollId` belongs to one agent identity; poll answers are never cacheable.
 */
import type { WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, collect, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval } from "../timing.js";

/** A fresh pollId (a nonce reduced to the pollId alphabet). */
export const pollIdOf = (ctx: CheckContext) =>
  ctx
    .nonce()
    .replace(/[^A-Za-z0-9_-]/g, "")
    .slice(-64);
/** What a replay must repeat of a delivery: the event, its attempt and its lease. */
export const shape = (e: WireEvent) => ({ id: e.id, attempts: e.attempts, leaseExpiresAt: e.leaseExpiresAt });
export const ms = (t: string | undefined) => (t === undefined ? undefined : Date.parse(t));

/** Trigger `n` events for b carrying fresh nonces and wait until b's queue holds them (without claiming). */
async function readyEvents(ctx: CheckContext, n: number): Promise<string[]> {
  const nonces: string[] = [];
  for (let i = 0; i < n; i++) {
    const nonce = ctx.nonce();
    nonces.push(nonce);
    await trigger(ctx, "b", nonce);
  }
  return nonces;
}

/** Poll as b with `pollId` until an answer holds an event carrying one of `nonces` (acking strays first). */
async function pollUntil(
  ctx: CheckContext,
  pollId: string,
  nonces: string[],
  extra: { urlIndex?: number } = {},
): Promise<{ answer: Answer<{ events: WireEvent[] }>; events: WireEvent[] }> {
  const b = ctx.as("b");
  const deadline = now() + arrival(ctx.timing);
  for (;;) {
    const answer = await b.poll({ limit: 50, pollId }, extra);
    const events = eventsOf(ctx, answer);
    if (events.some((e) => nonces.some((n) => carries(e, n)))) return { answer, events };
    for (const e of events) await b.ack(e.id);
    if (now() > deadline) ctx.incomplete("the triggered events never arrived");
    await pause(pollInterval(ctx.timing));
  }
}

export const pollReplayChecks = [
  defineCheck({
    id: "poll-replay.same-deliveries",
    family: "poll-replay",
    title: "answers a repeated pollId with the same deliveries, on any replica, and claims nothing new",
    verifies: ["CAP-REPLAY-2", "CAP-REPLAY-5"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const nonces = await readyEvents(ctx, 2);
      const pollId = pollIdOf(ctx);
      const urls = ctx.run.settings.urls.length;
      const { answer, events } = await pollUntil(ctx, pollId, nonces, { urlIndex: 0 });
      // Something new is ready before the replay: a replay must not claim it.
      const later = ctx.nonce();
      await trigger(ctx, "b", later);
      const requirement = urls > 1 ? "CAP-REPLAY-5" : "CAP-REPLAY-2";
      const replay = await b.poll({ limit: 50, pollId }, { urlIndex: urls > 1 ? 1 : 0 });
      const again = eventsOf(ctx, replay);
      const same =
        again.length === events.length &&
        events.every((e, i) => {
          const r = again[i];
          return r?.id === e.id && r.attempts === e.attempts && ms(r.leaseExpiresAt) === ms(e.leaseExpiresAt);
        });
      ctx.expect(requirement, same, {
        message:
          urls > 1
            ? "a poll replayed on another replica did not answer the same deliveries (ids, attempts, leaseExpiresAt)"
            : "a replayed poll did not answer the same deliveries (ids, attempts, leaseExpiresAt)",
        expected: events.map(shape),
        actual: again.map(shape),
        exchange: replay,
      });
      ctx.expect("CAP-REPLAY-2", !again.some((e) => carries(e, later)), {
        message: "a replayed poll claimed an event that became ready after the original poll",
        expected: "only the original deliveries",
        actual: again.map(shape),
        exchange: replay,
      });
      ctx.about(answer);
      for (const e of [...events, ...again]) await b.ack(e.id);
      const fresh = await collect(ctx, "b", {
        match: (e) => carries(e, later),
        count: 1,
        deadline: now() + arrival(ctx.timing),
      });
      for (const e of fresh) await b.ack(e.id);
    },
  }),
  defineCheck({
    id: "poll-replay.fresh-when-gone",
    family: "poll-replay",
    title: "answers a pollId whose deliveries were all acked as a fresh poll",
    verifies: ["CAP-REPLAY-3"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const pollId = pollIdOf(ctx);
      const { events } = await pollUntil(ctx, pollId, await readyEvents(ctx, 1));
      for (const e of events) await b.ack(e.id);
      const next = await readyEvents(ctx, 1);
      const { answer, events: fresh } = await pollUntil(ctx, pollId, next).catch(() => ({
        answer: undefined,
        events: [] as WireEvent[],
      }));
      ctx.expect(
        "CAP-REPLAY-3",
        fresh.some((e) => carries(e, next[0] as string)),
        {
          message: "a poll repeating a pollId whose deliveries were all acked did not claim the new event",
          expected: "the new event, as from a fresh poll",
          actual: fresh.map(shape),
          ...(answer ? { exchange: answer } : {}),
        },
      );
      for (const e of fresh) await b.ack(e.id);
    },
  }),
  defineCheck({
    id: "poll-replay.per-agent",
    family: "poll-replay",
    title: "scopes a pollId to one agent identity",
    verifies: ["CAP-REPLAY-4"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const pollId = pollIdOf(ctx);
      const { events: theirs } = await pollUntil(ctx, pollId, await readyEvents(ctx, 1));
      const mine = ctx.nonce();
      await trigger(ctx, "a", mine);
      const a = ctx.as("a");
      const deadline = now() + arrival(ctx.timing);
      let seen: WireEvent[] = [];
      let last: Answer | undefined;
      for (;;) {
        const res = await a.poll({ limit: 50, pollId });
        last = res;
        seen = eventsOf(ctx, res);
        const bs = seen.filter((e) => theirs.some((t) => t.id === e.id));
        ctx.assert("CAP-REPLAY-4", bs.length === 0, {
          message: "agent a's poll with agent b's pollId answered b's deliveries",
          expected: "a fresh poll for agent a",
          actual: bs.map(shape),
          exchange: last,
        });
        for (const e of seen) await a.ack(e.id);
        if (seen.some((e) => carries(e, mine)) || now() > deadline) break;
        await pause(pollInterval(ctx.timing));
      }
      ctx.expect(
        "CAP-REPLAY-4",
        seen.some((e) => carries(e, mine)),
        {
          message: "agent a's poll with a pollId agent b had used did not claim a's own new event",
          expected: "a's event",
          actual: seen.map(shape),
          exchange: last,
        },
      );
      for (const e of theirs) await ctx.as("b").ack(e.id);
    },
  }),
  defineCheck({
    id: "poll-replay.pollid-pattern",
    family: "poll-replay",
    title: "accepts pollId of 1–64 of A-Za-z0-9_- and answers 400 validation_failed to any other",
    verifies: ["CAP-REPLAY-1"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const c = ctx.as("c");
      const good = `${"Az09_-".repeat(10)}abcd`;
      const ok = await c.poll({ pollId: good });
      ctx.expectStatus(
        "CAP-REPLAY-1",
        ok,
        200,
        "a poll with a 64-character pollId of the allowed characters",
      );
      for (const e of ok.status === 200 ? eventsOf(ctx, ok) : []) await c.ack(e.id);
      for (const [what, bad] of [
        ["an empty pollId", ""],
        ["a pollId of 65 characters", "p".repeat(65)],
        ["a pollId with a space", "poll id"],
        ["a pollId with a dot", "poll.id"],
        ["a pollId with a non-ASCII letter", "pöll"],
      ] as const)
        ctx.expectError(
          "CAP-REPLAY-1",
          await c.poll({ pollId: bad }),
          400,
          "validation_failed",
          `a poll with ${what}`,
        );
    },
  }),
  defineCheck({
    id: "poll-replay.no-store",
    family: "poll-replay",
    title: "sends Cache-Control: no-store on poll answers, with and without pollId",
    verifies: ["CAP-REPLAY-6"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const c = ctx.as("c");
      for (const query of [{}, { pollId: pollIdOf(ctx) }]) {
        const res = await c.poll(query);
        for (const e of res.status === 200 ? eventsOf(ctx, res) : []) await c.ack(e.id);
        const header = Object.entries(res.headers).find(([k]) => k.toLowerCase() === "cache-control")?.[1];
        const directives = (header ?? "").split(",").map((d) => d.trim().toLowerCase());
        ctx.expect("CAP-REPLAY-6", res.status === 200 && directives.includes("no-store"), {
          message: `a poll ${"pollId" in query ? "with" : "without"} pollId`,
          expected: "HTTP 200 with Cache-Control: no-store",
          actual: `HTTP ${res.status}, Cache-Control: ${header ?? "(none)"}`,
          exchange: res,
        });
      }
    },
  }),
];
