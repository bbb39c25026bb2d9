/**
 * A burst: 100 human messages, 50 in each of the agent's two pods, interleaved. Every event is acked,
 * each is answered at most once, and every reply that names its message (by the text it echoes) sits in
 * that message's pod; a driver whose replies quote nothing is held to at most one reply per event per pod.
 */
import { defineDriverCheck } from "../check.js";
import { expectValidOutcomes, polledEvents, withNonce } from "./support.js";

const PER_POD = 50;

export const burstChecks = [
  defineDriverCheck({
    id: "driver.burst.two-pods",
    family: "burst",
    title:
      "100 events across two pods: each acked, each answered at most once, every reply in its event's pod, no lease lapsing in the driver's hands",
    verifies: ["CAP-DRV-1", "CAP-DRV-8", "CAP-DRV-9", "CAP-REL-12"],
    async run(ctx) {
      await ctx.begin({ pods: 2 });
      const pods = [ctx.pod(0), ctx.pod(1)];
      const sent: { nonce: string; podId: string; messageId: string }[] = [];
      for (let i = 0; i < PER_POD; i++)
        for (const pod of pods) {
          const nonce = ctx.nonce();
          sent.push({ nonce, podId: pod.id, messageId: await ctx.world.say(pod.id, `burst ${nonce}`) });
        }
      const mine = new Set(sent.map((s) => s.messageId));
      const events = async () =>
        (await ctx.world.events(ctx.agent)).filter((e) => e.type === "message.posted");
      // Patience follows progress: wait while acks keep coming, give up after a stall of five leases
      // (at least ten seconds), never longer than two minutes in all (both scaled).
      const stallMs = ctx.ms(Math.max(10_000, 5 * ctx.leaseMs));
      const started = Date.now();
      let progress = { count: -1, at: started };
      await ctx.waitFor(async () => {
        const count = (await events()).filter((e) => e.state === "acked").length;
        if (count !== progress.count) progress = { count, at: Date.now() };
        return count >= sent.length || Date.now() - progress.at >= stallMs;
      }, ctx.ms(120_000));
      const deadline = `${Date.now() - started} ms (no ack for ${stallMs} ms ends the wait)`;
      const all = await events();
      const unacked = all.filter((e) => e.state !== "acked");
      ctx.expect("CAP-DRV-8", unacked.length === 0 && all.length >= mine.size, {
        message: `${unacked.length} of ${all.length} events of the burst were not acked within ${deadline}${ctx.processNote()}`,
        expected: `${sent.length} acked events`,
        actual: unacked
          .slice(0, 10)
          .map((e) => `${e.id} ${e.state} attempts ${e.attempts}`)
          .join(", "),
        wire: ctx.wire("poll", "ack", "batch-ack").slice(-20),
      });
      for (const e of all.slice(0, 100)) expectValidOutcomes(ctx, "CAP-DRV-8", e.id);

      // No fault in this scenario: a redelivery means a lease ran out while the driver held the event.
      const lapsed = ctx.wire("poll").flatMap((x) =>
        polledEvents(x)
          .filter((e) => Number(e.attempts) > 1)
          .map((e) => ({ x, e })),
      );
      ctx.expect("CAP-REL-12", lapsed.length === 0, {
        message: `${lapsed.length} deliveries of the burst came back after their lease ran out in the driver's hands`,
        expected: "every fetched event renewed, released or acked before its lease ends",
        actual: lapsed
          .slice(0, 5)
          .map(({ e }) => `${String(e.id)} attempts ${String(e.attempts)}`)
          .join(", "),
        wire: [...new Set(lapsed.map(({ x }) => x))],
      });
      const replies = await ctx.world.agentMessages(ctx.agent);
      let unattributed = new Map<string, number>();
      for (const s of sent) {
        const quoting = withNonce(replies, s.nonce);
        if (
          !ctx.expect("CAP-DRV-1", quoting.length <= 1, {
            message: `the message "burst ${s.nonce}" was answered ${quoting.length} times`,
            expected: "at most one reply per event",
            actual: quoting.map((m) => m.id),
          })
        )
          break;
        const astray = quoting.filter((m) => m.podId !== s.podId);
        if (
          !ctx.expect("CAP-DRV-9", astray.length === 0, {
            message: `the reply to "burst ${s.nonce}" landed in another pod`,
            expected: `pod ${s.podId}`,
            actual: astray.map((m) => `pod ${m.podId}`),
          })
        )
          break;
      }
      const anonymous = replies.filter((m) => !sent.some((s) => m.content.includes(s.nonce)));
      unattributed = new Map();
      for (const m of anonymous) unattributed.set(m.podId, (unattributed.get(m.podId) ?? 0) + 1);
      for (const [podId, count] of unattributed)
        ctx.expect("CAP-DRV-1", count <= PER_POD, {
          message: `pod ${podId} got ${count} replies for ${PER_POD} events`,
          expected: `at most ${PER_POD}`,
          actual: count,
        });
      const threadedAstray = replies.filter(
        (m) =>
          m.replyToMessageId !== null &&
          mine.has(m.replyToMessageId) &&
          !sent.some((s) => s.messageId === m.replyToMessageId && s.podId === m.podId),
      );
      ctx.expect("CAP-DRV-9", threadedAstray.length === 0, {
        message: "replies were threaded under a message of another pod",
        expected: "each threaded reply in its message's pod",
        actual: threadedAstray.map((m) => m.id).slice(0, 5),
      });
    },
  }),
];
