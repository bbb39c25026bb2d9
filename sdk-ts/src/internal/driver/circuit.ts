/**
 * The retry circuit that paces a driver after handler failures, as a pure state
 * machine: given the class of each consecutive handler failure it says how long to wait before the
 * next attempt. It owns no timers and reads no clock, so tests drive it with tables.
 *
 * - quota / configuration: a 15-minute circuit at once;
 * - rate_limit: a circuit at 60 s, doubling on every failed probe up to 15 minutes;
 * - runtime: the poll interval, then twice it, then from the third consecutive failure a circuit at
 *   60 s doubling up to 15 minutes;
 * - every delay gets the agent's stable 0–20 % offset (so at most 18 minutes);
 * - only a completed handler turn resets it.
 */

/** The failure classes the retry circuit tells apart. */
export type FailureClass = "quota" | "configuration" | "rate_limit" | "runtime";

export const CIRCUIT_START_MS = 60_000;
export const CIRCUIT_CEILING_MS = 15 * 60_000;

const RULES: ReadonlyArray<readonly [FailureClass, RegExp]> = [
  [
    "quota",
    /insufficient_quota|\bquota\b|credit balance|out of credits|usage limit|billing|payment required|\b402\b/i,
  ],
  [
    "configuration",
    /not logged in|log ?in required|please (?:run \/?)?log ?in|invalid[ _-]?api[ _-]?key|missing api key|unauthori[sz]ed|authentication|forbidden|\b40[13]\b|command not found|ENOENT/i,
  ],
  ["rate_limit", /rate[ _-]?limit|\b429\b|too many requests|overloaded|\b529\b/i],
];

const KIND_ALIASES: Record<string, FailureClass> = {
  quota: "quota",
  configuration: "configuration",
  config: "configuration",
  not_found: "configuration",
  rate_limit: "rate_limit",
  ratelimit: "rate_limit",
  runtime: "runtime",
  timeout: "runtime",
};

/**
 * The class of a handler's failure: its `kind` or `class` property when it has one (the CLI's
 * `AdapterError` does), a CAP status (429, 401/403) when it is a `CapHttpError`, else its message.
 */
export function classifyFailure(error: unknown): FailureClass {
  if (typeof error === "object" && error !== null) {
    const e = error as Record<string, unknown>;
    for (const key of ["kind", "class"]) {
      const alias = typeof e[key] === "string" ? KIND_ALIASES[(e[key] as string).toLowerCase()] : undefined;
      if (alias) return alias;
    }
    if (typeof e.status === "number") {
      if (e.status === 429) return "rate_limit";
      if (e.status === 401 || e.status === 403) return "configuration";
    }
  }
  const text = error instanceof Error ? `${error.message}` : String(error);
  for (const [kind, pattern] of RULES) if (pattern.test(text)) return kind;
  return "runtime";
}

/** What the circuit decided after a failure. */
export interface CircuitDecision {
  failureClass: FailureClass;
  /** Consecutive failures, this one included. */
  consecutive: number;
  /** Whether the circuit is open (the long-delay regime) after this failure. */
  open: boolean;
  /** Delay before the next attempt, jitter included. */
  delayMs: number;
}

export class RetryCircuit {
  #consecutive = 0;
  #baseMs = 0;
  #open = false;

  /** `intervalMs`: the poll interval the runtime class starts from; `jitter`: the stable fraction in [0, 0.2). */
  constructor(
    private readonly intervalMs: number,
    private readonly jitter: number,
  ) {}

  get consecutive(): number {
    return this.#consecutive;
  }

  failure(failureClass: FailureClass): CircuitDecision {
    this.#consecutive++;
    if (failureClass === "quota" || failureClass === "configuration") {
      this.#open = true;
      this.#baseMs = CIRCUIT_CEILING_MS;
    } else if (this.#open) {
      this.#baseMs = Math.min(this.#baseMs * 2, CIRCUIT_CEILING_MS);
    } else if (failureClass === "rate_limit" || this.#consecutive >= 3) {
      this.#open = true;
      this.#baseMs = CIRCUIT_START_MS;
    } else {
      this.#baseMs = this.intervalMs * this.#consecutive;
    }
    return {
      failureClass,
      consecutive: this.#consecutive,
      open: this.#open,
      delayMs: Math.round(this.#baseMs * (1 + this.jitter)),
    };
  }

  /** A completed handler turn: close the circuit and forget the streak. */
  reset(): void {
    this.#consecutive = 0;
    this.#baseMs = 0;
    this.#open = false;
  }
}
