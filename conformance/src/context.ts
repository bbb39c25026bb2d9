/**
 * What a running check sees: the cast of fixture agents (as typed CAP clients), the kernel's timing,
 * fresh nonces, canary URLs, and assertions that record a failure naming one requirement id. `expect`
 * records and carries on; `assert` records and stops the check. A check may only blame requirement ids it
 * declares in `verifies` — the runner treats anything else as a harness bug. The one exception is `setup`:
 * a step the check relies on but does not verify (a post to have a message) is judged under the
 * requirement that defines that step's answer, so a broken post is reported as CAP-MSG-1, never as the
 * requirement the check was about to verify.
 */
import { AgentApi, type Demand, type Role } from "./agents.js";
import type { Canary } from "./canary.js";
import type { Cast } from "./config/fixture.js";
import type { Settings } from "./config/settings.js";
import type { Feature } from "./features.js";
import type { AuditLog } from "./http/audit-log.js";
import type { HttpClient, RequestSpec } from "./http/client.js";
import type { Answer, Exchange } from "./http/exchange.js";
import type { Timing } from "./timing.js";

export interface Failure {
  requirement: string;
  message: string;
  expected?: string;
  actual?: string;
  exchange?: Exchange;
  /** The exchanges behind a failure that is about a sequence (the driver suite's wire log). */
  wire?: Exchange[];
  /**
   * Set when the failure showed in a step the check relies on but does not verify (`CheckContext.setup`):
   * the step, as a phrase ("posting a thread root"). The requirement is the one that defines the step.
   */
  setup?: string;
}

export interface Detail {
  message: string;
  expected?: unknown;
  actual?: unknown;
  exchange?: Exchange | Answer;
}

/** Thrown by `assert`/`fail` after recording: stops the check, the failure is already on record. */
export class CheckFailed extends Error {
  override name = "CheckFailed";
}
/**
 * Thrown by `setup` after recording: a step the check relies on got an answer it cannot go on with. A
 * kind of CheckFailed, so the check counts as stopped early and its own requirements stay unverified.
 */
export class SetupFailed extends CheckFailed {
  override name = "SetupFailed";
}
/** Thrown when something the check needs could not be done (the run is then "incomplete"). */
export class CheckIncomplete extends Error {
  override name = "CheckIncomplete";
}
/** Thrown when the check turns out not to apply to this kernel. */
export class CheckSkipped extends Error {
  override name = "CheckSkipped";
}

/** Kernel facts and harness objects shared by every check of a run. */
export interface RunState {
  runId: string;
  settings: Settings;
  cast: Cast;
  http: HttpClient;
  timing: Timing;
  info?: Record<string, unknown>;
  features: ReadonlySet<Feature>;
  canary: Canary;
  audit: AuditLog;
}

/**
 * What a context needs of the check it runs: the id it files exchanges under and the requirement ids the
 * check may name. A `Check` is one; the context never imports what a check is (that module imports it).
 */
export interface CheckIdentity {
  readonly id: string;
  readonly verifies: readonly string[];
}

const show = (v: unknown): string | undefined =>
  v === undefined ? undefined : typeof v === "string" ? v : JSON.stringify(v);

export class CheckContext {
  readonly failures: Failure[] = [];
  readonly notes: string[] = [];
  readonly exchanges: Exchange[] = [];
  private nonces = 0;
  private subject?: Exchange;
  private readonly agents = new Map<Role, AgentApi>();

  constructor(
    readonly check: CheckIdentity,
    readonly run: RunState,
  ) {}

  get cast(): Cast {
    return this.run.cast;
  }
  get timing(): Timing {
    return this.run.timing;
  }
  get info(): Record<string, unknown> | undefined {
    return this.run.info;
  }
  has(feature: Feature): boolean {
    return this.run.features.has(feature);
  }

  /** A CAP client acting as fixture agent `a`, `b` or `c`. */
  as(role: Role): AgentApi {
    let api = this.agents.get(role);
    if (!api) {
      api = new AgentApi(this, role, this.cast[role]);
      this.agents.set(role, api);
    }
    return api;
  }

  /** Send a request and record the exchange under this check. */
  async send(spec: RequestSpec): Promise<Answer> {
    const x = await this.run.http.send(spec);
    x.check = this.check.id;
    this.exchanges.push(x);
    return {
      status: x.status,
      body: x.json,
      headers: x.responseHeaders,
      durationMs: x.durationMs,
      exchange: x,
    };
  }

  /** A value no earlier run can have produced: `capc-<run>-<n>-<random>`. */
  nonce(): string {
    const rnd = Math.random().toString(36).slice(2, 8);
    return `capc-${this.run.runId}-${++this.nonces}-${rnd}`;
  }

  canaryUrl(label: string): string {
    return this.run.canary.url(`${this.check.id}/${label}`);
  }

  /**
   * Name the answer the next assertions are about: a failure that names no exchange of its own gets this
   * one's reproducer (helpers that read state — memory, messages, events — set it).
   */
  about(answer: Answer): void {
    this.subject = answer.exchange;
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** Record a failure of `requirement` unless `ok`. Returns `ok`. */
  expect(requirement: string, ok: boolean, detail: Detail): boolean {
    if (!this.check.verifies.includes(requirement))
      throw new Error(`check ${this.check.id} names ${requirement}, which it does not declare in verifies`);
    if (!ok) this.failures.push(this.failure(requirement, detail));
    return ok;
  }

  private failure(requirement: string, detail: Detail): Failure {
    const given =
      detail.exchange && "exchange" in detail.exchange ? detail.exchange.exchange : detail.exchange;
    const exchange = given ?? this.subject;
    const f: Failure = { requirement, message: detail.message };
    const expected = show(detail.expected);
    const actual = show(detail.actual);
    if (expected !== undefined) f.expected = expected;
    if (actual !== undefined) f.actual = actual;
    if (exchange) f.exchange = exchange;
    return f;
  }

  /**
   * Judge a step the check relies on but does not verify — a post to have a message, a memory write to
   * have memory, a poll to find an event — under `requirement`, the one that defines the step's answer
   * (CAP-MSG-1 for a post). Unless `ok`, the failure names that requirement with `setup: step`, and the
   * check stops: it never got to judge its own requirements, so it blames none of them. When the check
   * itself verifies `requirement`, this is a plain `assert`. The requirement must be in the manifest (the
   * runner reports an unknown id as a harness error).
   */
  setup(requirement: string, step: string, ok: boolean, detail: Omit<Detail, "message">): asserts ok {
    if (ok) return;
    if (this.check.verifies.includes(requirement)) this.fail(requirement, { message: step, ...detail });
    this.failures.push({
      ...this.failure(requirement, { message: `setup failed: ${step}`, ...detail }),
      setup: step,
    });
    throw new SetupFailed(`setup failed: ${step} (${requirement})`);
  }

  /**
   * A setup step whose answer must meet `demand` (what the requirement defining the operation demands:
   * `demands.post` is CAP-MSG-1's 201 {id, createdAt}). A 429 or 503 — which CAP lets a kernel answer to
   * any request — means the step could not be done: the check is incomplete, nothing is blamed.
   */
  setupAnswer(answer: Answer, demand: Demand, step: string): void {
    if (answer.status === 429 || answer.status === 503)
      this.incomplete(
        `setup failed: ${step} answered HTTP ${answer.status} ${answer.exchange.responseBody.slice(0, 200)}`,
      );
    const ok = answer.status === demand.status && (demand.body?.(answer.body) ?? true);
    this.setup(demand.requirement, step, ok, {
      expected: demand.shows,
      actual: `HTTP ${answer.status} ${answer.exchange.responseBody.slice(0, 500)}`,
      exchange: answer,
    });
  }

  /** A setup step that must answer `status`, the status `requirement` demands of it. */
  setupStatus(requirement: string, answer: Answer, status: number, step: string): void {
    this.setupAnswer(answer, { requirement, status, shows: `HTTP ${status}` }, step);
  }

  /**
   * A request the check verifies the kernel accepts (unknown fields ignored, no version declared, a pod the
   * agent is installed in) while the exact answer belongs to the operation's own requirement (`demand`:
   * CAP-MSG-1's 201 for a post). A refusal — a non-2xx answer other than 429 or 503 — fails `requirement`;
   * an acceptance that falls short of `demand` is a setup failure of the operation's requirement. Returns
   * whether the request was accepted.
   */
  expectAccepted(requirement: string, answer: Answer, message: string, demand: Demand): boolean {
    const accepted = answer.status >= 200 && answer.status < 300;
    if (!accepted && answer.status !== 429 && answer.status !== 503) {
      this.expect(requirement, false, {
        message,
        expected: demand.shows,
        actual: `HTTP ${answer.status} ${answer.exchange.responseBody.slice(0, 500)}`,
        exchange: answer,
      });
      return false;
    }
    this.setupAnswer(answer, demand, message);
    return true;
  }

  /** Like `expectAccepted`, but a refusal stops the check. */
  assertAccepted(requirement: string, answer: Answer, message: string, demand: Demand): void {
    if (!this.expectAccepted(requirement, answer, message, demand)) throw new CheckFailed(message);
  }

  /** Like `expect`, but stops the check when the condition does not hold. */
  assert(requirement: string, ok: boolean, detail: Detail): asserts ok {
    if (!this.expect(requirement, ok, detail)) throw new CheckFailed(detail.message);
  }

  fail(requirement: string, detail: Detail): never {
    this.expect(requirement, false, detail);
    throw new CheckFailed(detail.message);
  }

  /** Expect a status; on a mismatch, show the body the kernel sent. */
  expectStatus(requirement: string, answer: Answer, status: number | number[], message: string): boolean {
    const ok = Array.isArray(status) ? status.includes(answer.status) : answer.status === status;
    return this.expect(requirement, ok, {
      message,
      expected: `HTTP ${Array.isArray(status) ? status.join(" or ") : status}`,
      actual: `HTTP ${answer.status} ${answer.exchange.responseBody.slice(0, 500)}`,
      exchange: answer,
    });
  }

  assertStatus(requirement: string, answer: Answer, status: number | number[], message: string): void {
    if (!this.expectStatus(requirement, answer, status, message)) throw new CheckFailed(message);
  }

  /** Expect an error answer with this status and registry code. */
  expectError(requirement: string, answer: Answer, status: number, code: string, message: string): boolean {
    const body = answer.body as { code?: unknown } | undefined;
    return this.expect(requirement, answer.status === status && body?.code === code, {
      message,
      expected: `HTTP ${status} {"code": "${code}", …}`,
      actual: `HTTP ${answer.status} ${answer.exchange.responseBody.slice(0, 500)}`,
      exchange: answer,
    });
  }

  incomplete(reason: string): never {
    throw new CheckIncomplete(reason);
  }

  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }
}
