/**
 * Pull-only: the suite planted canary URLs in every writable field it sent (message content and metadata,
 * memory sections, ack reasons and details, decision context). A kernel that connects to any of them has
 * opened an outbound connection because of what a driver sent.
 */

import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { now, pause } from "../timing.js";

export const pullOnlyChecks = [
  defineCheck({
    id: "pull-only.canary-untouched",
    family: "pull-only",
    title: "never connects to a URL a driver sent (canary URLs planted in every writable field)",
    verifies: ["CAP-PULL-1"],
    last: true,
    async run(ctx: CheckContext) {
      const { canary } = ctx.run;
      // A short grace period for connections a kernel makes in the background after answering; it ends
      // early at the first hit.
      const deadline = now() + 250 * ctx.timing.timeScale;
      while (canary.hits.length === 0 && now() < deadline) await pause(25);
      for (const hit of canary.hits.slice(0, 10))
        ctx.expect("CAP-PULL-1", false, {
          message: `the kernel connected to a canary URL planted by ${decodeURIComponent(hit.path.split("/")[3] ?? "?")}`,
          expected: "no inbound connection",
          actual: hit,
        });
    },
  }),
];
