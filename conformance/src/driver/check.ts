/**
 * What a driver check is: one scenario the suite plays as the kernel (a fresh agent, a scripted fault
 * layer, the driver started anew under `--command`), the driver requirement ids it judges, and its family.
 * Checks are data, like the kernel checks; the runner decides from the manifest whether a failure is
 * fatal (MUST) or a warning (SHOULD). A check judges only the wire and the pod, never the driver's code.
 */
import type { Feature } from "../features.js";
import type { DriverCheckIdentity, DriverContext } from "./context.js";

/** Driver check families, in the order they run (`requests` aggregates the whole run, last). */
export const driverFamilies = [
  "handling",
  "idempotency",
  "leases",
  "cancel",
  "unknown",
  "backoff",
  "polling",
  "burst",
  "features",
  "auth",
  "trace",
  "requests",
] as const;
export type DriverFamily = (typeof driverFamilies)[number];

export interface DriverCheck extends DriverCheckIdentity {
  /** Stable id, `driver.<family>.<what>`, kebab-case. */
  readonly id: string;
  readonly family: DriverFamily;
  readonly title: string;
  readonly verifies: readonly string[];
  /** Gate: the check runs only when the run claims this feature for the driver (`--claim`). */
  readonly feature?: Feature;
  /** Needs the driver started anew (fresh /info, fresh token): skipped under `--wait`. */
  readonly restart?: boolean;
  /** Only observable with `--command` (the driver's stderr or exit): skipped under `--wait`. */
  readonly needsProcess?: boolean;
  /** Revokes the agent's token: under `--wait` it runs after every other scenario. */
  readonly revokes?: boolean;
  /** Its scenario hides optional features from /info (the run-wide feature judgements skip it). */
  readonly hidesFeatures?: boolean;
  /** Judges the exchanges of every scenario; runs last and starts no driver. */
  readonly last?: boolean;
  run(ctx: DriverContext): Promise<void>;
}

export function defineDriverCheck(check: DriverCheck): DriverCheck {
  return check;
}
