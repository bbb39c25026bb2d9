/**
 * The run-wide aggregate, judged last over every exchange of every scenario: the driver stayed on the
 * CAP surface (CAP-DRV-7) and the kernel never had to reject one of its requests as malformed
 * (CAP-DRV-17) — memory writes and syncs, renews, releases and batch acks included. The fault layer's own
 * answers are not the kernel's and do not count.
 */
import { defineDriverCheck } from "../check.js";

export const requestChecks = [
  defineDriverCheck({
    id: "driver.requests.cap-only-well-formed",
    family: "requests",
    title: "over the whole run: only CAP routes, and no request the kernel rejects as malformed (400, 415)",
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
];
