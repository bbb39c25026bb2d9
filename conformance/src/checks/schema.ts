/**
 * Every 2xx body of the whole run, validated with the generated CAP validators: the response schema of
 * its operation, and for events of documented types the payload schema. Each violation names the
 * requirement that promises that shape.
 */

import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";

/** Which requirement promises each response schema. */
const promisedBy: Record<string, string> = {
  EventList: "CAP-EVT-3",
  AckResponse: "CAP-ACK-1",
  RenewResponse: "CAP-LEASE-7",
  PostMessageResponse: "CAP-MSG-1",
  PodMessageList: "CAP-READ-1",
  MemoryEnvelope: "CAP-MEM-1",
  PutMemoryResponse: "CAP-MEM-8",
  SyncMemoryResponse: "CAP-MEM-14",
  Info: "CAP-INFO-1",
  DecisionResponse: "CAP-DEC-1",
};

function requirementOf(what: string, problems: string[]): string {
  if (what.includes(".payload")) return "CAP-EVT-6";
  if (problems.length > 0 && problems.every((p) => /must match format "date-time"/.test(p)))
    return "CAP-COMPAT-2";
  return promisedBy[what.split(" ")[0] ?? ""] ?? "CAP-EVT-3";
}

export const schemaChecks = [
  defineCheck({
    id: "schema.every-2xx-body",
    family: "schema",
    title: "sends every 2xx body of the run in the shape the CAP schemas define",
    verifies: [...new Set([...Object.values(promisedBy), "CAP-EVT-6", "CAP-COMPAT-2"])],
    last: true,
    async run(ctx: CheckContext) {
      const { audit } = ctx.run;
      if (audit.successes === 0) ctx.incomplete("the run saw no 2xx answer to validate");
      ctx.note(`${audit.successes} 2xx bodies validated`);
      for (const v of audit.schema.slice(0, 25))
        ctx.expect(requirementOf(v.what, v.problems), false, {
          message: `${v.exchange.method} ${new URL(v.exchange.url).pathname}: the body does not match ${v.what}`,
          expected: v.what,
          actual: v.problems.join("; "),
          exchange: v.exchange,
        });
      if (audit.schema.length > 25) ctx.note(`${audit.schema.length - 25} more schema violations not listed`);
    },
  }),
];
