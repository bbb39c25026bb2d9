/**
 * The shape of a run's results (what every report renders) and the rules that turn recorded failures into
 * statuses and an exit code. One place decides: MUST failures fail, SHOULD failures warn (fail under
 * `--strict`), a MAY requirement only runs behind its feature and, claimed or advertised, is mandatory.
 */
import type { CanaryHit } from "../canary.js";
import type { Family } from "../check.js";
import type { DriverFamily } from "../driver/check.js";
import type { Feature } from "../features.js";
import type { Exchange } from "../http/exchange.js";
import type { Level } from "../requirements.js";

export type CheckStatus = "passed" | "failed" | "warned" | "skipped" | "incomplete" | "expected-failure";
export type Severity = "fail" | "warn";

export interface FailureReport {
  requirement: string;
  level: Level;
  severity: Severity;
  requirementText: string;
  message: string;
  expected?: string;
  actual?: string;
  /** Replays the request that showed the failure; tokens come from `$CAP_TOKEN_<AGENT>`. */
  curl?: string;
  exchange?: Exchange;
  /** Driver suite: the exchanges between the driver and the kernel that show the failure, in order. */
  wire?: Exchange[];
  /** Set when a baseline entry expects this failure: which entry, and its reason. */
  expectedBy?: string;
}

export interface CheckResult {
  id: string;
  family: Family | DriverFamily;
  title: string;
  verifies: string[];
  feature?: Feature;
  level: Level;
  status: CheckStatus;
  durationMs: number;
  /** Why it was skipped, why it is incomplete, or which baseline entry expected its failure. */
  reason?: string;
  failures: FailureReport[];
  notes: string[];
  /** An assertion stopped the check: requirements it had not judged yet are not verified by it. */
  stoppedEarly?: boolean;
  /** Every exchange of the check; only with `--trace`. */
  exchanges?: Exchange[];
}

export type RequirementStatus =
  | "passed"
  | "failed"
  | "warned"
  | "expected-failure"
  | "incomplete"
  | "skipped"
  | "not-covered"
  | "not-testable";

export interface RequirementResult {
  id: string;
  level: Level;
  subject: "kernel" | "driver";
  feature: Feature | null;
  section: string;
  text: string;
  status: RequirementStatus;
  checks: string[];
}

export interface Summary {
  checks: number;
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
  incomplete: number;
  expectedFailures: number;
  staleBaseline: number;
  exitCode: 0 | 1 | 2 | 3;
  verdict: "conformant" | "not conformant" | "incomplete" | "error";
}

export interface RunReport {
  reportVersion: 1;
  /** Absent or "kernel": `cap-conformance run`; "driver": `cap-conformance driver`. */
  mode?: "kernel" | "driver";
  /** Driver runs: how the driver under test was started. */
  driver?: { command?: string; wait?: boolean };
  tool: { name: string; version: string };
  runId: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  target: {
    urls: string[];
    info: Record<string, unknown> | null;
    features: Feature[];
    claimed: Feature[];
    leaseSeconds: number | null;
    maxAttempts: number | null;
    timeScale: number;
    trigger: "protocol" | "command";
  };
  settings: { only: string[]; skip: string[]; level: "must" | "should"; strict: boolean; trace: boolean };
  summary: Summary;
  checks: CheckResult[];
  requirements: RequirementResult[];
  baseline: { path: string | null; stale: { check?: string; requirement?: string; reason: string }[] };
  canary: { hits: CanaryHit[] };
  notes: string[];
  /** Set when the run stopped on a configuration or harness error (exit code 2). */
  error?: string;
}

/** Exit code from the summary counts: failures (incl. strict warnings, stale baseline) > incomplete > ok. */
export function exitCodeOf(s: Omit<Summary, "exitCode" | "verdict">, strict: boolean): 0 | 1 | 3 {
  if (s.failed > 0 || s.staleBaseline > 0 || (strict && s.warned > 0)) return 1;
  if (s.incomplete > 0) return 3;
  return 0;
}

export function verdictOf(code: 0 | 1 | 2 | 3): Summary["verdict"] {
  return code === 0 ? "conformant" : code === 1 ? "not conformant" : code === 3 ? "incomplete" : "error";
}
