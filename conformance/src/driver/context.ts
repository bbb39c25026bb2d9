/**
 * What a running driver scenario sees: the kernel it plays (World), the fault proxy and its recording,
 * the agent under test and its driver process, deadlines derived from the configured lease times
 * `--time-scale`, and assertions that record a failure naming one requirement id with the wire exchanges
 * behind it. Waits poll until a deadline; nothing sleeps a guess.
 */
import { CheckFailed, type CheckIdentity, CheckIncomplete, CheckSkipped, type Failure } from "../context.js";
import type { Exchange } from "../http/exchange.js";
import { DriverProcess } from "./driver-process.js";
import type { FaultProxy, ProxyScript, RouteKind, WireExchange } from "./fault-proxy.js";
import type { Agent, EventState, Pod, World } from "./world.js";

/** What a driver context needs of its check (a `DriverCheck` is one): its id, verifies and family. */
export interface DriverCheckIdentity extends CheckIdentity {
  /** Names the scenario's fresh agent. */
  readonly family: string;
}

export interface DriverRunState {
  runId: string;
  world: World;
  proxy: FaultProxy;
  /** token → label, shared with the proxy (the proxy labels exchanges by agent name). */
  secrets: Map<string, string>;
  leaseMs: number;
  timeScale: number;
  /** `--command`: a driver process per scenario; undefined under `--wait`. */
  command?: string;
  /** Under `--wait`: the one agent the user's driver runs as. */
  shared?: Agent;
  /** Every exchange of every scenario, labelled with the check id (the `requests` aggregate reads it). */
  byCheck: Map<string, WireExchange[]>;
  /** Checks whose scenario hid `poll-replay` from /info. */
  hidesReplay: Set<string>;
  /** How long a driver may take to make its first request. */
  startupMs: number;
  /** `--trace`: keep every exchange of each scenario in its result. */
  settingsTrace: boolean;
}

export interface DriverDetail {
  message: string;
  expected?: unknown;
  actual?: unknown;
  wire?: WireExchange[];
}

const show = (v: unknown): string | undefined =>
  v === undefined ? undefined : typeof v === "string" ? v : JSON.stringify(v);

const MAX_WIRE = 30;

export class DriverContext {
  readonly failures: Failure[] = [];
  readonly notes: string[] = [];
  agent!: Agent;
  driver?: DriverProcess;
  /** Every process started for this scenario (more than one after a crash and restart). */
  private readonly drivers: DriverProcess[] = [];
  private readonly since = Date.now();
  private seq = 0;

  constructor(
    readonly check: DriverCheckIdentity,
    readonly run: DriverRunState,
  ) {}

  get world(): World {
    return this.run.world;
  }
  get leaseMs(): number {
    return this.run.leaseMs;
  }
  /** Scale a duration by `--time-scale`. */
  ms(x: number): number {
    return Math.round(x * this.run.timeScale);
  }

  /** A value no other scenario of this run can produce. */
  nonce(): string {
    const rnd = Math.random().toString(36).slice(2, 6);
    return `capd-${this.run.runId}-${this.check.id.split(".").pop()}-${++this.seq}-${rnd}`;
  }

  /**
   * Provision the agent under test in `pods` fresh pods, install the fault script, start the driver (or,
   * under --wait, reuse the user's), and wait for its first poll.
   */
  async begin(o: { pods?: number; script?: ProxyScript; waitForPoll?: boolean } = {}): Promise<void> {
    if (this.run.shared) {
      this.agent = this.run.shared;
    } else {
      const pods = [];
      for (let i = 0; i < (o.pods ?? 1); i++) pods.push(await this.world.createPod(`p${i + 1}`));
      this.agent = await this.world.createAgent(this.check.family, pods);
      this.run.secrets.set(this.agent.token, this.agent.name);
    }
    if (o.script) this.run.proxy.scripts.set(this.agent.name, o.script);
    else this.run.proxy.scripts.delete(this.agent.name);
    this.start();
    if (o.waitForPoll !== false) await this.firstPoll();
  }

  /** Start the driver under `--command` for this scenario's agent (the first pod is `CAP_POD_ID`). */
  private start(): void {
    const pod = this.agent.pods[0];
    if (!this.run.command || !pod) return;
    this.driver = new DriverProcess(
      this.run.command,
      { url: this.run.proxy.url, token: this.agent.token, podId: pod.id, agentName: this.agent.name },
      this.run.secrets,
    );
    this.drivers.push(this.driver);
  }

  /**
   * Crash the driver (SIGKILL to its process group, as an OOM kill or a lost machine would) and start it
   * again with the same environment; resolves once the new process has made its first request. Only
   * under `--command` (a check that calls it declares `needsProcess`).
   */
  async crashAndRestart(): Promise<void> {
    if (!this.driver) this.incomplete("crashing the driver needs --command");
    await this.driver.crash();
    const since = Date.now();
    this.start();
    const back = await this.waitFor(() => this.wire().some((x) => x.at >= since), this.run.startupMs);
    if (!back)
      this.incomplete(
        `the driver, started again after the crash, made no request within ${this.run.startupMs} ms${this.processNote()}`,
      );
  }

  /** The agent's `i`-th pod (the first is `CAP_POD_ID`). */
  pod(i = 0): Pod {
    const pod = this.agent?.pods[i];
    if (!pod) this.incomplete(`the scenario needs an agent in ${i + 1} pods`);
    return pod;
  }

  /** A human message in `pod`, and the event the kernel enqueued for the agent. */
  async say(pod: Pod, content: string): Promise<{ messageId: string; event: EventState }> {
    const messageId = await this.world.say(pod.id, content);
    const event = await this.world.eventFor(this.agent, pod.id, messageId);
    if (!event) this.incomplete(`the kernel enqueued no event for the message in pod ${pod.id}`);
    return { messageId, event };
  }

  /** Wait until the driver has polled once in this scenario. */
  async firstPoll(): Promise<WireExchange> {
    const ok = await this.waitFor(() => this.wire("poll").length > 0, this.run.startupMs);
    const first = this.wire("poll")[0];
    if (!ok || !first) {
      const how = this.driver
        ? `the driver (${this.driver.describeExit()}) made no poll within ${this.run.startupMs} ms; stderr: ${this.driver.tail("stderr", 600) || "(empty)"}`
        : `no driver polled within ${this.run.startupMs} ms`;
      this.incomplete(how);
    }
    return first;
  }

  async end(): Promise<void> {
    if (this.agent) this.run.proxy.scripts.delete(this.agent.name);
    for (const d of this.drivers) await d.stop(this.ms(3000));
  }

  /** This scenario's exchanges by the agent under test, oldest first; optionally only some kinds. */
  wire(...kinds: RouteKind[]): WireExchange[] {
    if (!this.agent) return [];
    return this.run.proxy.exchanges.filter(
      (x) => x.as === this.agent.name && x.at >= this.since && (kinds.length === 0 || kinds.includes(x.kind)),
    );
  }

  /** Poll `predicate` every 20 ms until it holds or `timeoutMs` passes. */
  async waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await predicate()) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Wait until the kernel has the event acked; a driver process that has exited acks nothing more. */
  async acked(eventId: string, timeoutMs: number): Promise<boolean> {
    let gone = false;
    const done = await this.waitFor(async () => {
      if ((await this.world.event(eventId))?.state === "acked") return true;
      gone = this.driver !== undefined && !this.driver.running;
      return gone;
    }, timeoutMs);
    return done && !gone;
  }

  /** How long a driver gets to handle an event that is ready now: the lease plus slack. */
  get handleMs(): number {
    return this.ms(5000 + 2 * this.leaseMs);
  }

  note(text: string): void {
    this.notes.push(text);
  }

  expect(requirement: string, ok: boolean, d: DriverDetail): boolean {
    if (!this.check.verifies.includes(requirement))
      throw new Error(`check ${this.check.id} names ${requirement}, which it does not declare in verifies`);
    if (ok) return true;
    const f: Failure = { requirement, message: d.message };
    const expected = show(d.expected);
    const actual = show(d.actual);
    if (expected !== undefined) f.expected = expected;
    if (actual !== undefined) f.actual = actual;
    const wire = (d.wire ?? this.wire()).slice(-MAX_WIRE);
    if (wire.length > 0) {
      f.wire = wire as Exchange[];
      f.exchange = wire[wire.length - 1] as Exchange;
    }
    this.failures.push(f);
    return false;
  }

  assert(requirement: string, ok: boolean, d: DriverDetail): asserts ok {
    if (!this.expect(requirement, ok, d)) throw new CheckFailed(d.message);
  }

  fail(requirement: string, d: DriverDetail): never {
    this.expect(requirement, false, d);
    throw new CheckFailed(d.message);
  }

  incomplete(reason: string): never {
    throw new CheckIncomplete(reason);
  }

  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  /** A line about the driver process for failure messages. */
  processNote(): string {
    if (!this.driver) return "";
    const err = this.driver.tail("stderr", 400);
    return ` (driver ${this.driver.describeExit()}${err ? `; stderr: ${err}` : ""})`;
  }
}
