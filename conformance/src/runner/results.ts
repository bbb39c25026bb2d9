/**
 * The shape of a run's results (what every report renders) and the rules that turn recorded failures into
 * statuses and an exit code. One place decides: MUST failures fail, SHOULD failures warn (fail under
 * `--strict`), a MAY requirement only runs behind its feature and, claimed or advertised, is mandatory; a
 * run is incomplete when a check it needed — selected, applicable, verifying a MUST (or anything under
 * `--strict`) — did not reach a verdict.
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
  /**
   * Set when the failure showed in a step the check relies on but does not verify (a post it needed, a
   * memory write): the step. `requirement` is then the one that defines that step, not one the check
   * verifies, and the check stopped there without judging its own requirements.
   */
  setup?: string;
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
  /**
   * Why it was skipped or not selected, why it is incomplete, which setup step stopped it ("setup failed:
   * posting a thread root (CAP-MSG-1)"), or which baseline entry expected its failure.
   */
  reason?: string;
  failures: FailureReport[];
  notes: string[];
  /** An assertion stopped the check: requirements it had not judged yet are not verified by it. */
  stoppedEarly?: boolean;
  /** Every exchange of the check; only with `--trace`. */
  exchanges?: Exchange[];
  /**
   * `false` when `--only`, `--skip` or `--level` left the check out (status `skipped`, the reason says
   * which); absent otherwise. Checks left out are counted in `summary.notSelected`, never listed by the
   * human reports, and never make a run incomplete.
   */
  selected?: false;
  /**
   * Set when the check failed unexpectedly and was run again, alone, before the verdict: its first run.
   * Every other field is the second run's, which is what the verdict counts — unless the second run reached
   * no verdict (incomplete or skipped): then the first run's failure stands, with a note naming the second.
   */
  firstRun?: FirstRun;
  /** The first run failed and the second did not: reported, named in the summary, not a failure. */
  flaky?: true;
}

/** What the first run of a check that was run again recorded. */
export interface FirstRun {
  status: CheckStatus;
  durationMs: number;
  reason?: string;
  failures: FailureReport[];
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
  /** Checks selected for the run (every count below is among them); `notSelected` more were left out. */
  checks: number;
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
  incomplete: number;
  expectedFailures: number;
  staleBaseline: number;
  /** Checks `--only`, `--skip` or `--level` left out. */
  notSelected: number;
  exitCode: 0 | 1 | 2 | 3;
  verdict: "conformant" | "not conformant" | "incomplete" | "error";
  /**
   * How close a `conformant` run came: `MUST + SHOULD` — every selected check passed, SHOULDs included
   * (what a `--strict` run that passes always reaches, and what a published SDK should meet); `MUST` —
   * every MUST passed but a SHOULD did not (named in `shortOfShould`) or was not selected (`--level must`);
   * `baseline` — conformant only because the baseline expects failures of MUSTs. Null otherwise.
   */
  level: ConformanceLevel | null;
  /** Selected checks short of `MUST + SHOULD`: a SHOULD of theirs warned, was expected to fail, or went unverified. */
  shortOfShould: string[];
  /** Checks that failed unexpectedly and were run again, alone, before the verdict. */
  rerun: string[];
  /** Of those, the ones whose second run did not fail: flaky, reported, not failures. */
  flaky: string[];
}

export type ConformanceLevel = "MUST + SHOULD" | "MUST" | "baseline";

/** The verdict as the reports print it: `conformant (MUST + SHOULD)`, `not conformant`, … */
export const verdictText = (s: Pick<Summary, "verdict" | "level">) =>
  s.level ? `${s.verdict} (${s.level})` : s.verdict;

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

/**
 * Whether a check's missing verdict leaves the run incomplete: it was selected (and, being in the results
 * with status `incomplete`, applied — a check whose optional feature is neither advertised nor claimed is
 * `skipped`, never `incomplete`) and it verifies a MUST, or a MAY its feature made mandatory — or, under
 * `--strict`, anything at all.
 */
export const blocksVerdict = (r: CheckResult, strict: boolean) =>
  r.status === "incomplete" && r.selected !== false && (strict || r.level !== "SHOULD");

/**
 * Exit code: 1 when something failed (a MUST, a SHOULD under --strict, a stale baseline entry), else 3
 * when a check the verdict needs did not reach one (`blocking` of them), else 0.
 */
export function exitCodeOf(
  s: Pick<Summary, "failed" | "warned" | "staleBaseline">,
  strict: boolean,
  blocking: number,
): 0 | 1 | 3 {
  if (s.failed > 0 || s.staleBaseline > 0 || (strict && s.warned > 0)) return 1;
  if (blocking > 0) return 3;
  return 0;
}

export function verdictOf(code: 0 | 1 | 2 | 3): Summary["verdict"] {
  return code === 0 ? "conformant" : code === 1 ? "not conformant" : code === 3 ? "incomplete" : "error";
}
