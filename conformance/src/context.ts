/**
 * What a running check sees: the cast of fixture agents (as typed CAP clients), the kernel's timing,
 * fresh nonces, canary URLs, and assertions that record a failure naming one requirement id. `expect`
 * records and carries on; `assert` records and stops the check. A check may only name requirement ids it
 * declares in `verifies` — the runner treats anything else as a harness bug.
 */
import { AgentApi, type Role } from "./agents.js";
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
    if (ok) return true;
    const given =
      detail.exchange && "exchange" in detail.exchange ? detail.exchange.exchange : detail.exchange;
    const exchange = given ?? this.subject;
    const f: Failure = { requirement, message: detail.message };
    const expected = show(detail.expected);
    const actual = show(detail.actual);
    if (expected !== undefined) f.expected = expected;
    if (actual !== undefined) f.actual = actual;
    if (exchange) f.exchange = exchange;
    this.failures.push(f);
    return false;
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
