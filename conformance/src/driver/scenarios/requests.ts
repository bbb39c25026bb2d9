/**
 * The run-wide aggregates, judged last over every exchange of every scenario: the driver stayed on the
 * CAP surface (CAP-DRV-7), the kernel never had to reject one of its requests as malformed (CAP-DRV-17) —
 * memory writes and syncs, renews, releases and batch acks included — and, a SHOULD with a check of its
 * own, where `poll-replay` was advertised every poll carried a `pollId`, a new one after an answer, the
 * same one after a broken connection or a lost answer (CAP-REPLAY-7). The fault layer's own answers are
 * not the kernel's and do not count.
 */
import { defineDriverCheck } from "../check.js";
import type { WireExchange } from "../fault-proxy.js";

export const requestChecks = [
  defineDriverCheck({
    id: "driver.requests.cap-only-well-formed",
    family: "requests",
    title:
      "over the whole run: only CAP routes, no request the kernel rejects as malformed (400, 415), a pollId on every poll where advertised",
    verifies: ["CAP-DRV-7", "CAP-DRV-17"],
    last: true,
    async run(ctx) {
      const all = [...ctx.run.byCheck.values()].flat();
      if (all.length === 0) ctx.skip("no scenario ran, so there is no traffic to judge");
      const outside = all.filter((x) => x.kind === "outside-cap");
      ctx.expect("CAP-DRV-7", outside.length === 0, {
        message: `the driver called ${outside.length} routes outside CAP`,
        expected: "requests under /api/agents/runtime only",
        actual: [...new Set(outside.map((x) => `${x.method} ${new URL(x.url).pathname}`))].slice(0, 5),
        wire: outside,
      });
      const rejected = all.filter((x) => !x.fault && (x.status === 400 || x.status === 415));
      ctx.expect("CAP-DRV-17", rejected.length === 0, {
        message: `the kernel rejected ${rejected.length} of the driver's requests as malformed`,
        expected: "no 400 or 415 answers",
        actual: rejected
          .slice(0, 5)
          .map((x) => `${x.method} ${new URL(x.url).pathname} → ${x.status} ${x.responseBody.slice(0, 160)}`),
        wire: rejected,
      });
      ctx.note(`${all.length} exchanges judged across ${ctx.run.byCheck.size} scenarios`);
    },
  }),
  defineDriverCheck({
    id: "driver.requests.poll-ids",
    family: "requests",
    title:
      "over the whole run, where poll-replay is advertised: a pollId on every poll, the same on the retry of a poll whose answer was lost, a new one after an answer",
    verifies: ["CAP-REPLAY-7"],
    last: true,
    async run(ctx) {
      if (ctx.run.byCheck.size === 0) ctx.skip("no scenario ran, so there is no traffic to judge");
      // Scenarios that hide poll-replay from /info are judged by CAP-DRV-16 instead.
      const replayed = [...ctx.run.byCheck.entries()].filter(([id]) => !ctx.run.hidesReplay.has(id));
      const problems: { message: string; wire: WireExchange[] }[] = [];
      for (const [id, xs] of replayed) {
        const polls = xs.filter((x) => x.kind === "poll");
        const pollId = (x: WireExchange) => new URL(x.url).searchParams.get("pollId");
        const bare = polls.filter((x) => !pollId(x));
        if (bare.length > 0)
          problems.push({ message: `${bare.length} polls of ${id} carried no pollId`, wire: bare });
        for (let i = 1; i < polls.length; i++) {
          const [a, b] = [polls[i - 1] as WireExchange, polls[i] as WireExchange];
          // A scenario run again has a second driver, with its own polls.
          if (!pollId(a) || !pollId(b) || a.as !== b.as) continue;
          if (a.status === 200 && pollId(a) === pollId(b))
            problems.push({
              message: `${id}: a new poll reused the pollId of one already answered`,
              wire: [a, b],
            });
          if (a.fault?.startsWith("connection reset") && pollId(a) !== pollId(b))
            problems.push({
              message: `${id}: the retry of a poll whose answer was lost sent a new pollId`,
              wire: [a, b],
            });
        }
      }
      ctx.expect("CAP-REPLAY-7", problems.length === 0, {
        message: problems[0]?.message ?? "",
        expected: "a pollId on every poll, the same on each retry of a poll and a new one for each new poll",
        actual: problems.map((p) => p.message).slice(0, 5),
        wire: problems.flatMap((p) => p.wire).slice(0, 20),
      });
    },
  }),
];
