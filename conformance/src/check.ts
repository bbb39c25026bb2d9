/**
 * What a conformance check is: a named behaviour of a CAP kernel, the requirement ids it verifies, the
 * family it belongs to and, for optional capabilities, the feature that gates it. Checks are data; the
 * runner decides from the requirements manifest whether a failure is fatal, a warning or not applicable.
 * A check must never reach outside the CAP surface (no admin routes, no database).
 */
import type { CheckContext, CheckIdentity } from "./context.js";
import type { Feature } from "./features.js";

/** Check families, in the order they run. `schema`, `errors` aggregates and `pull-only` run last. */
export const families = [
  "info",
  "auth",
  "isolation",
  "events",
  "leases",
  "ack",
  "long-poll",
  "renew",
  "release",
  "batch-ack",
  "poll-replay",
  "cancel",
  "trace",
  "messages",
  "idempotency",
  "message-read",
  "memory",
  "decisions",
  "errors",
  "outage",
  "compat",
  "schema",
  "pull-only",
] as const;
export type Family = (typeof families)[number];

export interface Check extends CheckIdentity {
  /** Stable id, `<family>.<what-it-checks>`, kebab-case. */
  readonly id: string;
  readonly family: Family;
  /** A sentence of behaviour: "redelivers an unacked event at the first poll after its lease ends". */
  readonly title: string;
  /** Requirement ids from spec/requirements.yaml; each failure names one of them. */
  readonly verifies: readonly string[];
  /** Gate: the check runs only when the kernel advertises this feature or the config claims it. */
  readonly feature?: Feature;
  /**
   * The check polls fixture agents' event queues (or makes events). Such checks run one at a time in the
   * queue lane; the others run beside it, one at a time, in the second lane.
   */
  readonly queue?: boolean;
  /**
   * Runs with no other check beside it, after both lanes and before the aggregates: it takes the kernel's
   * store away (the store-outage hook), which would fail any check running at the same time.
   */
  readonly alone?: boolean;
  /** Runs after every other check (aggregates over the whole run). */
  readonly last?: boolean;
  run(ctx: CheckContext): Promise<void>;
}

/** Identity helper so check modules get type checking without a class. */
export function defineCheck(check: Check): Check {
  return check;
}
