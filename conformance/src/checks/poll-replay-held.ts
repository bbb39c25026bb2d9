/**
 * Poll replay once a poll's deliveries have changed hands: some settled (acked, acked in a batch, released)
 * while the rest are still held, or their leases ended and a later poll claimed the events again. A replay
 * answers exactly what its caller still holds (CAP-REPLAY-2) — never a delivery it no longer holds, with
 * that delivery's attempts or lease, and never an event another poll holds (CAP-REPLAY-8) — and once
 * nothing of the poll is held it is a fresh poll (CAP-REPLAY-3). Every wait runs to a deadline derived from
 * the lease; nothing sleeps a guessed time.
 */
import { demands, type WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";
import { carries, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval, tolerance } from "../timing.js";
import { leaseMs } from "./leases.js";
import { ms, pollIdOf, shape } from "./poll-replay.js";

const skipped = { result: { outcome: "skipped", reason: "conformance: not this check's event" } };

interface Claimed {
  pollId: string;
  /** The triggered events, in trigger order, as the poll delivered them. */
  mine: WireEvent[];
  /** Everything else the same poll delivered (leftovers), to be acked. */
  strays: WireEvent[];
  sentAt: number;
  answeredAt: number;
}

/** Trigger `n` events for b and claim all of them in one poll under a fresh pollId (three tries). */
async function claimTogether(ctx: CheckContext, n: number): Promise<Claimed> {
  const b = ctx.as("b");
  for (let round = 0; round < 3; round++) {
    const nonces: string[] = [];
    for (let i = 0; i < n; i++) {
      const nonce = ctx.nonce();
      nonces.push(nonce);
      await trigger(ctx, "b", nonce);
    }
    const pollId = pollIdOf(ctx);
    const deadline = now() + arrival(ctx.timing);
    for (;;) {
      const sentAt = now();
      const answer = await b.poll({ limit: 50, pollId });
      const answeredAt = now();
      const events = eventsOf(ctx, answer);
      const mine = nonces.map((x) => events.find((e) => carries(e, x)));
      if (mine.every((e) => e !== undefined)) {
        ctx.about(answer);
        const strays = events.filter((e) => !mine.includes(e));
        return { pollId, mine: mine as WireEvent[], strays, sentAt, answeredAt };
      }
      // Not all in one poll (a kernel that enqueues late): give these back, and try again with new events.
      for (const e of events) await b.ack(e.id, skipped);
      if (mine.some((e) => e !== undefined)) break;
      if (answeredAt > deadline) ctx.incomplete("the triggered events never arrived");
      await pause(pollInterval(ctx.timing));
    }
  }
  ctx.incomplete(`the ${n} triggered events never arrived together in one poll`);
}

type Way = "ack" | "batch ack" | "release";
const done: Record<Way, string> = { ack: "acked", "batch ack": "acked in a batch", release: "released" };

/** An ack as a step: only that it settled matters here, so any 2xx will do (CAP-ACK-1's shape is ack.*'s). */
async function ackStep(ctx: CheckContext, e: WireEvent, step: string): Promise<void> {
  const res = await ctx.as("b").ack(e.id);
  if (res.status < 200 || res.status >= 300) ctx.setupAnswer(res, demands.ack, step);
}

async function settle(ctx: CheckContext, way: Way, e: WireEvent): Promise<void> {
  const b = ctx.as("b");
  if (way === "ack") await ackStep(ctx, e, "acking one delivery of the poll");
  else if (way === "release")
    ctx.setupStatus(
      "CAP-REL-1",
      await b.release(e.id, { attempts: e.attempts }),
      200,
      "releasing one delivery of the poll",
    );
  else {
    const res = await b.ackMany({ acks: [{ id: e.id }] });
    const results = (res.body as { results?: { ok?: unknown }[] } | undefined)?.results;
    const step = "acking one delivery of the poll in a batch";
    ctx.setupStatus("CAP-BATCH-1", res, 200, step);
    ctx.setup("CAP-BATCH-1", step, results?.[0]?.ok === true, {
      expected: 'HTTP 200 {"results": [{"id", "ok": true}]}',
      actual: res.exchange.responseBody.slice(0, 300),
      exchange: res,
    });
  }
}

export const pollReplayHeldChecks = [
  defineCheck({
    id: "poll-replay.after-partial-settlement",
    family: "poll-replay",
    title:
      "replays only the deliveries still held once others of the poll were acked or released, then polls afresh",
    verifies: ["CAP-REPLAY-2", "CAP-REPLAY-3", "CAP-REPLAY-8"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const L = leaseMs(ctx);
      const ways: Way[] = [
        "ack",
        ...(ctx.has("batch-ack") ? (["batch ack"] as const) : []),
        ...(ctx.has("release") ? (["release"] as const) : []),
      ];
      const claimed = await claimTogether(ctx, ways.length + 1);
      const { pollId } = claimed;
      // The middle delivery stays held; each other one is settled one way, and leftovers are acked.
      const heldAt = Math.floor(claimed.mine.length / 2);
      const held = claimed.mine[heldAt] as WireEvent;
      const settled = [
        ...claimed.mine.filter((_, i) => i !== heldAt).map((event, i) => ({ way: ways[i] as Way, event })),
        ...claimed.strays.map((event) => ({ way: "ack" as Way, event })),
      ];
      for (const s of settled) await settle(ctx, s.way, s.event);
      // The held lease runs at least L from the claim (or from a renewal): the replay must come before.
      let heldUntil = claimed.sentAt + L;
      let lease = held.leaseExpiresAt;
      if (ctx.has("renew")) {
        const renewedAt = now();
        const res = await b.renew(held.id, held.attempts);
        ctx.setupStatus("CAP-LEASE-7", res, 200, "renewing the delivery that stays held");
        lease = (res.body as { leaseExpiresAt?: string } | undefined)?.leaseExpiresAt ?? lease;
        heldUntil = renewedAt + L;
      }
      // Something new is ready too (besides a released event): a replay must not claim it.
      const later = ctx.nonce();
      await trigger(ctx, "b", later);

      const replay = await b.poll({ limit: 50, pollId });
      if (now() >= heldUntil)
        ctx.incomplete(
          `the replay was answered after the held delivery's lease (${L} ms) could have ended; nothing to judge`,
        );
      const again = eventsOf(ctx, replay);
      const detail = { expected: [{ id: held.id, attempts: held.attempts, leaseExpiresAt: lease }] };
      for (const s of settled) {
        const back = again.find((e) => e.id === s.event.id);
        if (!back) continue;
        if (s.way === "release" && back.attempts > s.event.attempts)
          ctx.expect("CAP-REPLAY-2", false, {
            message: "a replay claimed a released event anew while a delivery of the poll was still held",
            ...detail,
            actual: again.map(shape),
            exchange: replay,
          });
        else
          ctx.expect("CAP-REPLAY-8", false, {
            message: `a replay returned a delivery ${done[s.way]} before it, as if still held`,
            ...detail,
            actual: again.map(shape),
            exchange: replay,
          });
      }
      const h = again.find((e) => e.id === held.id);
      ctx.expect(
        "CAP-REPLAY-2",
        h !== undefined && h.attempts === held.attempts && ms(h.leaseExpiresAt) === ms(lease),
        {
          message: `a replay did not answer the delivery still held with its attempts and current${ctx.has("renew") ? " (renewed)" : ""} leaseExpiresAt`,
          ...detail,
          actual: again.map(shape),
          exchange: replay,
        },
      );
      const extra = again.filter((e) => e.id !== held.id && !settled.some((s) => s.event.id === e.id));
      ctx.expect("CAP-REPLAY-2", extra.length === 0, {
        message: "a replay claimed events the original poll had not delivered",
        ...detail,
        actual: again.map(shape),
        exchange: replay,
      });

      // Nothing of the poll is held once the last delivery is acked: its pollId now makes a fresh poll.
      await ackStep(ctx, held, "acking the delivery still held");
      const acked = new Set([held.id, ...settled.filter((s) => s.way !== "release").map((s) => s.event.id)]);
      const released = settled.find((s) => s.way === "release")?.event;
      let gotLater = false;
      let gotReleased = released === undefined;
      const deadline = now() + arrival(ctx.timing);
      for (;;) {
        const res = await b.poll({ limit: 50, pollId });
        const events = eventsOf(ctx, res);
        for (const e of events) {
          if (acked.has(e.id))
            ctx.expect("CAP-REPLAY-8", false, {
              message: "a poll repeating the pollId returned a delivery acked before it",
              expected: "never again",
              actual: shape(e),
              exchange: res,
            });
          if (released && e.id === released.id) {
            gotReleased = true;
            ctx.expect(
              "CAP-REPLAY-8",
              e.attempts === released.attempts + 1 &&
                (ms(e.leaseExpiresAt) ?? 0) > (ms(released.leaseExpiresAt) ?? 0),
              {
                message:
                  "the released event came back to the repeated pollId without a new claim (attempts + 1, a new lease)",
                expected: `attempts ${released.attempts + 1} and a lease after ${released.leaseExpiresAt}`,
                actual: shape(e),
                exchange: res,
              },
            );
          }
          if (carries(e, later)) gotLater = true;
        }
        for (const e of events) await b.ack(e.id, skipped);
        if (gotLater && gotReleased) break;
        if (now() > deadline) {
          ctx.expect("CAP-REPLAY-3", false, {
            message:
              "a poll repeating a pollId none of whose deliveries is held any more did not claim the events ready",
            expected: released ? "the released event and the newer one" : "the newer event",
            actual: `newer event ${gotLater ? "" : "not "}claimed${released ? `, released event ${gotReleased ? "" : "not "}claimed` : ""}`,
            exchange: res,
          });
          break;
        }
        await pause(pollInterval(ctx.timing));
      }
    },
  }),
  defineCheck({
    id: "poll-replay.after-lease-loss",
    family: "poll-replay",
    title:
      "never replays a delivery whose lease ended, nor an event a later poll claimed since: the repeat polls afresh",
    verifies: ["CAP-REPLAY-2", "CAP-REPLAY-3", "CAP-REPLAY-8"],
    feature: "poll-replay",
    queue: true,
    async run(ctx: CheckContext) {
      const b = ctx.as("b");
      const L = leaseMs(ctx);
      const T = tolerance(ctx.timing);
      const M = ctx.timing.maxAttempts;
      if (M !== undefined && M < 3)
        ctx.incomplete(`the check follows each event over three deliveries; maxAttempts is ${M}`);
      const first = await claimTogether(ctx, 2);
      const { pollId } = first;
      for (const e of first.strays) await b.ack(e.id, skipped);
      const orig = new Map(first.mine.map((e) => [e.id, e]));
      const ids = [...orig.keys()];

      // 1. The leases end and nobody claims the events: a repeat of the pollId is a fresh poll, which claims
      // them anew (attempts + 1, new leases) — never the ended deliveries as they were.
      let fresh: { answer: Answer; events: WireEvent[]; answeredAt: number } | undefined;
      while (!fresh) {
        const sentAt = now();
        const answer = await b.poll({ limit: 50, pollId });
        const answeredAt = now();
        const events = eventsOf(ctx, answer);
        const same =
          events.length === orig.size &&
          events.every((e) => {
            const o = orig.get(e.id);
            return o && o.attempts === e.attempts && ms(o.leaseExpiresAt) === ms(e.leaseExpiresAt);
          });
        if (same) {
          // The poll's own deliveries: right while their lease runs, stale once it has surely ended.
          ctx.assert("CAP-REPLAY-8", sentAt < first.answeredAt + L + T, {
            message: `a repeat of the pollId ${Math.round(sentAt - first.answeredAt)} ms after its claim returned the deliveries with their old attempts and leaseExpiresAt; their lease (${L} ms) had ended`,
            expected: "a fresh poll: the events with attempts + 1 and new leases",
            actual: events.map(shape),
            exchange: answer,
          });
          await pause(pollInterval(ctx.timing));
          continue;
        }
        ctx.assert("CAP-REPLAY-2", answeredAt >= first.sentAt + L, {
          message: "a replay while the poll's leases still ran did not answer exactly its deliveries",
          expected: first.mine.map(shape),
          actual: events.map(shape),
          exchange: answer,
        });
        fresh = { answer, events, answeredAt };
      }
      for (const o of orig.values()) {
        const e = fresh.events.find((x) => x.id === o.id);
        if (!e)
          ctx.expect("CAP-REPLAY-3", false, {
            message:
              "a repeat of the pollId after its leases ended did not claim the poll's events, ready again",
            expected: `event ${o.id} with attempts ${o.attempts + 1}`,
            actual: fresh.events.map(shape),
            exchange: fresh.answer,
          });
        else
          ctx.expect(
            "CAP-REPLAY-8",
            e.attempts === o.attempts + 1 && (ms(e.leaseExpiresAt) ?? 0) > (ms(o.leaseExpiresAt) ?? 0),
            {
              message:
                "a repeat of the pollId after its leases ended returned a delivery with its old attempts or lease",
              expected: `attempts ${o.attempts + 1} and a lease after ${o.leaseExpiresAt}`,
              actual: shape(e),
              exchange: fresh.answer,
            },
          );
      }
      for (const e of fresh.events) if (!orig.has(e.id)) await b.ack(e.id, skipped);

      // 2. Those leases end too, and a later poll (without the pollId) claims the events again: a repeat of
      // the pollId must not return them, neither as its own ended deliveries nor as the later poll's.
      const reclaimed = new Map<string, WireEvent>();
      const deadline = fresh.answeredAt + L + T;
      while (reclaimed.size < orig.size) {
        const res = await b.poll({ limit: 50 });
        for (const e of eventsOf(ctx, res))
          if (orig.has(e.id)) reclaimed.set(e.id, e);
          else await b.ack(e.id, skipped);
        if (reclaimed.size === orig.size) break;
        if (now() > deadline) {
          for (const id of ids) await b.ack(id, skipped);
          ctx.incomplete("the poll's events did not come back to a later poll after their leases ended");
        }
        await pause(pollInterval(ctx.timing));
      }
      const res = await b.poll({ limit: 50, pollId });
      const back = eventsOf(ctx, res).filter((e) => orig.has(e.id));
      ctx.expect("CAP-REPLAY-8", back.length === 0, {
        message: "a repeat of the pollId returned events a later poll had claimed since",
        expected: "none of them: the later poll holds them",
        actual: back.map((e) => {
          const later = reclaimed.get(e.id);
          return { returned: shape(e), heldByTheLaterPoll: later ? shape(later) : undefined };
        }),
        exchange: res,
      });
      for (const e of eventsOf(ctx, res)) if (!orig.has(e.id)) await b.ack(e.id, skipped);
      for (const id of ids) await b.ack(id, skipped);
    },
  }),
];
