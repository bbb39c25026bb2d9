/**
 * `runDriver`: the poll → dedup → handle → ack loop every CAP driver needs, done once and right.
 * Long-poll with a fallback to interval polling, polls retry-safe by `pollId`, serial handling (or
 * opt-in concurrency with a per-pod lock), renewal of every lease it holds (the running event and
 * the fetched ones still waiting), a handled-ids store so redeliveries are re-acked without running
 * the handler, the retry circuit after handler failures (a delay chosen by the failure's class; the
 * failed event released to come back when the probe is due), batch acks where the kernel has them, poll backoff that never gives
 * up except on three consecutive 401/403, the same backoff before the next poll after a batch whose
 * acks failed or whose events the kernel had already acked (so no answer, however wrong, makes it
 * spin), a graceful stop that releases what it did not start, and, where the kernel has `cancel`, a
 * watch of each running handler's delivery that aborts the handler when its event is cancelled and,
 * while it works, keeps that delivery's lease in place of the renewals. Every request for an event
 * carries its W3C trace context (a batch ack, of several events, none); where `@opentelemetry/api` is
 * installed each turn is a consumer span, child of the event's context, whose context those requests
 * carry instead.
 * It prints nothing (hooks report everything) and never acks an event whose handler did not finish,
 * except a cancelled one (`cancelled`, once its handler settled or outlived the shutdown grace).
 * Over 400 lines because it is the one place that composes the parts (poller, lease set, settler,
 * circuit, cancellations, turn), each of which lives, with its rules, in internal/driver/.
 */

import type { DriverHooks, DriverOptions, DriverSummary } from "./driver-types.js";
import { type CancelledError, CapHttpError, type CapSdkError } from "./errors.js";
import type { Feature } from "./generated/constants.js";
import { type HandledStore, MemoryHandledStore } from "./handled-store.js";
import { type Clock, realClock, realSleep, type Sleep, stableJitter } from "./internal/client/time.js";
import { Backoff } from "./internal/driver/backoff.js";
import { Cancellations } from "./internal/driver/cancellations.js";
import { classifyFailure, RetryCircuit } from "./internal/driver/circuit.js";
import { handlerFor } from "./internal/driver/dispatch.js";
import { LeaseSet } from "./internal/driver/lease.js";
import { PollSize } from "./internal/driver/poll-size.js";
import { Poller } from "./internal/driver/poller.js";
import { delaySecondsOf, Settler } from "./internal/driver/settle.js";
import { TurnSpans } from "./internal/driver/spans.js";
import { runTurn } from "./internal/driver/turn.js";
import type { TurnSpan } from "./internal/driver/turn-span.js";
import type { AckResult, Event, Info } from "./types.js";

/**
 * Runs a driver until `options.signal` aborts (resolves with a summary) or the kernel refuses the
 * token three polls in a row (rejects with `CapSdkError` `auth_stopped`).
 */
export function runDriver(options: DriverOptions): Promise<DriverSummary> {
  return new DriverLoop(options).run();
}

class DriverLoop {
  readonly #o: DriverOptions;
  readonly #stop: AbortSignal;
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  readonly #store: HandledStore;
  readonly #jitter: number;
  readonly #interval: number;
  readonly #circuit: RetryCircuit;
  /** Before the next poll, after batches the kernel's answers would not let the driver settle. */
  readonly #backoff: Backoff;
  readonly #summary: DriverSummary = {
    polls: 0,
    handled: 0,
    duplicates: 0,
    skipped: 0,
    failures: 0,
    released: 0,
    returned: 0,
    cancelled: 0,
  };
  #info: Info | undefined;
  #infoSettled = false;
  readonly #poller: Poller;
  readonly #size: PollSize;
  readonly #leases: LeaseSet;
  readonly #settler: Settler;
  /** Running handlers by event id, to abort one whose lease is lost or whose event is cancelled. */
  readonly #turns = new Map<string, AbortController>();
  readonly #cancels: Cancellations;
  readonly #spans = new TurnSpans();

  constructor(options: DriverOptions) {
    this.#o = options;
    this.#stop = options.signal ?? new AbortController().signal;
    this.#clock = options.clock ?? realClock;
    this.#sleep = options.sleep ?? realSleep;
    this.#store = options.store ?? new MemoryHandledStore();
    this.#jitter = stableJitter(options.agentKey ?? options.client.fingerprint);
    this.#interval = options.pollIntervalMs ?? 5000;
    this.#circuit = new RetryCircuit(this.#interval, this.#jitter);
    this.#backoff = new Backoff(this.#interval, this.#jitter);
    this.#size = new PollSize(options.limit);
    this.#poller = new Poller(
      {
        client: options.client,
        stop: this.#stop,
        clock: this.#clock,
        sleep: this.#sleep,
        interval: this.#interval,
        jitter: this.#jitter,
        onPollMode: (info) => this.#emit("onPollMode", info),
        onPollError: (info) => this.#emit("onPollError", info),
      },
      this.#size.limit,
      options.waitSeconds ?? 20,
    );
    this.#leases = new LeaseSet({
      client: options.client,
      clock: this.#clock,
      sleep: this.#sleep,
      renewAt: options.renewAt ?? 0.5,
      leaseMs: (event) => this.#leaseMs(event),
      leftMs: (event) => this.#leftMs(event),
      onRenew: (event, leaseExpiresAt) => this.#emit("onRenew", { event, leaseExpiresAt }),
      onError: (event, error) => this.#emit("onError", { stage: "renew", error, event }),
      onLost: (event, error) => this.#onLost(event, error),
      traceOf: (event) => this.#spans.traceOf(event),
      onUnsupported: () => {},
    });
    this.#settler = new Settler(
      options.client,
      {
        onAck: ({ event, result, duplicate }) => this.#emit("onAck", { event, result, duplicate }),
        onError: (stage, error, event) => this.#emit("onError", { stage, error, event }),
        onRelease: (info) => this.#emit("onRelease", info),
      },
      (event) => this.#spans.traceOf(event),
    );
    this.#cancels = new Cancellations({
      client: options.client,
      clock: this.#clock,
      sleep: this.#sleep,
      retryBaseMs: this.#interval,
      jitter: this.#jitter,
      onCancel: (event, error) => this.#onCancel(event, error),
      traceOf: (event) => this.#spans.traceOf(event),
      // As a renew answered 409 would: the lease set stops holding it, the handler is aborted.
      onLost: (event, error) => {
        this.#leases.drop(event.id);
        this.#onLost(event, error);
      },
      onError: (event, error) => this.#emit("onError", { stage: "watch", error, event }),
      // A working watch renews the lease it watches: one request per running turn, not two.
      onKeeping: (event, keeping) => this.#leases.keptByWatch(event.id, keeping),
      onQuiet: (event, leaseExpiresAt, inTime) =>
        this.#leases.renewedByWatch(event.id, leaseExpiresAt, inTime),
    });
  }

  #emit<K extends keyof DriverHooks>(hook: K, arg: Parameters<NonNullable<DriverHooks[K]>>[0]): void {
    try {
      (this.#o[hook] as ((a: typeof arg) => void) | undefined)?.(arg);
    } catch {
      // A hook must not break the loop.
    }
  }

  async run(): Promise<DriverSummary> {
    await this.#spans.load();
    try {
      await this.#loop();
    } finally {
      // Acks of finished handlers go out even when the loop ends by auth_stopped.
      await this.#settler.drain();
      this.#leases.close();
      this.#cancels.close();
    }
    return this.#summary;
  }

  async #loop(): Promise<void> {
    let announced = false;
    while (!this.#stop.aborted) {
      if (!this.#infoSettled) await this.#loadInfo();
      if (!announced && !this.#stop.aborted) {
        announced = true;
        const reason = this.#info ? "from /info" : "no /info; trying long-poll";
        this.#emit("onPollMode", { mode: this.#poller.wait > 0 ? "long-poll" : "interval", reason });
      }
      this.#summary.polls++;
      const events = await this.#poller.poll();
      if (events === undefined) continue;
      if (events.length === 0) {
        if (this.#poller.wait === 0) await this.#sleep(this.#interval, this.#stop);
        continue;
      }
      // A kernel never delivers an event again once it answered 200 to its ack (CAP-ACK-4).
      const back = events.filter((e) => this.#settler.settled(e.id)).length;
      const asked = this.#poller.limit;
      const started = this.#clock();
      const delay = await this.#runBatch(events);
      // Every ack of this batch is out before the next poll: none waits on a poll or a circuit.
      await this.#settler.drain();
      this.#size.handled(events.length, asked, this.#clock() - started, this.#leaseMs(events[0]!));
      this.#poller.limit = this.#size.limit;
      const pause = Math.max(delay, this.#troubleDelay(back));
      if (pause > 0) await this.#sleep(pause, this.#stop);
    }
  }

  /**
   * The backoff before the next poll when the batch could not be settled — acks failed, or the poll
   * handed back `back` events whose acks the kernel had confirmed — else 0 (and the backoff starts
   * over). Without it a kernel that refuses acks, or forgets them, would be polled as fast as it answers.
   */
  #troubleDelay(back: number): number {
    const trouble = this.#settler.takeTrouble();
    const again = back > 0 ? `the kernel delivered again ${back} event(s) it had confirmed acked` : "";
    const reason = [trouble?.reason, again].filter(Boolean).join("; ");
    if (!reason) {
      this.#backoff.reset();
      return 0;
    }
    const delayMs = this.#backoff.next(trouble?.retryAfterMs ?? 0);
    if (!this.#stop.aborted)
      this.#emit("onBackoff", { reason, consecutive: this.#backoff.failures, delayMs });
    return delayMs;
  }

  async #loadInfo(): Promise<void> {
    try {
      const info = await this.#o.client.info({ signal: this.#stop, retries: 0 });
      this.#info = info;
      this.#infoSettled = true;
      const poller = this.#poller;
      // Feature names typed by the spec's list: a renamed feature fails to compile here.
      const has = (feature: Feature) => info.features.includes(feature);
      this.#size.maxLimit = info.maxLimit;
      poller.limit = this.#size.limit;
      poller.wait = has("long-poll") ? Math.min(poller.wait, info.maxWaitSeconds) : 0;
      if (!has("renew")) this.#leases.stopRenewing();
      // Only what /info advertises: a kernel without /info (the production one) gets per-event
      // acks and no releases.
      this.#settler.batchAck = has("batch-ack");
      this.#settler.release = has("release");
      this.#cancels.watching = has("cancel");
    } catch (error) {
      // No /info (the production kernel has none): learn by trying. Other failures: ask again next time.
      if (
        error instanceof CapHttpError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 429
      ) {
        this.#infoSettled = error.status !== 401 && error.status !== 403;
      } else if (!this.#stop.aborted) {
        this.#emit("onError", { stage: "info", error });
      }
    }
  }

  /**
   * Handles a batch; returns the circuit delay after a handler failure, else 0. Every event is held
   * (renewed) from the poll until it is acked, given back or lost; what was not started — after a
   * failure, on stop, or because its lease was lost while it waited — is never run, and what this
   * driver still holds of it is released at once.
   */
  async #runBatch(events: Event[]): Promise<number> {
    for (const event of events) this.#leases.hold(event);
    const concurrency = Math.max(1, this.#o.concurrency ?? 1);
    let failureDelay = 0;
    let stopBatch = false;
    const started = new Set<string>();
    const givingBack: Array<Promise<void>> = [];
    // At once, not after the running handler: a waiting event must not sit out a minutes-long turn.
    const releaseRest = () => {
      const why = this.#stop.aborted
        ? "not started: the driver is stopping"
        : "not started: an earlier event of the batch failed and the retry circuit is waiting";
      for (const e of events)
        if (!started.has(e.id) && this.#leases.holds(e.id)) givingBack.push(this.#giveBack(e, 0, why));
    };
    this.#stop.addEventListener("abort", releaseRest, { once: true });
    const tails = new Map<string, Promise<void>>();
    const running = new Set<Promise<void>>();
    try {
      for (const event of events) {
        if (stopBatch || this.#stop.aborted) break;
        while (running.size >= concurrency) await Promise.race(running);
        if (stopBatch || this.#stop.aborted) break;
        const task = (tails.get(event.podId) ?? Promise.resolve()).then(async () => {
          if (stopBatch || this.#stop.aborted || !this.#leases.holds(event.id)) return;
          started.add(event.id);
          const delay = await this.#process(event);
          if (delay !== undefined) {
            stopBatch = true;
            failureDelay = Math.max(failureDelay, delay);
            releaseRest();
          }
        });
        tails.set(event.podId, task);
        running.add(task);
        void task.then(() => running.delete(task));
      }
      await Promise.all(running);
    } finally {
      this.#stop.removeEventListener("abort", releaseRest);
    }
    releaseRest();
    await Promise.all(givingBack);
    // Waiting events cancelled before their turn came (a renew told): acked, never started.
    for (const event of events) {
      const cancel = this.#cancels.take(event.id);
      if (cancel) await this.#ackCancelled(event, cancel);
    }
    return failureDelay;
  }

  /** Stop holding `event` and hand it back to the kernel (when it can take it back). */
  async #giveBack(event: Event, delaySeconds: number, reason: string): Promise<void> {
    this.#leases.drop(event.id);
    if (await this.#settler.giveBack(event, delaySeconds, reason)) this.#summary.returned++;
  }

  /**
   * Dedup, dispatch, ack — in the event's span, when there are spans. Returns a delay when the handler
   * failed. Never throws.
   */
  async #process(event: Event): Promise<number | undefined> {
    const span = this.#spans.start(event, this.#o.agentName);
    try {
      return await this.#handle(event, span);
    } finally {
      // Each path ends it with its outcome; this is the backstop.
      this.#spans.end(event, { givenUp: "stopped" });
    }
  }

  async #handle(event: Event, span: TurnSpan | undefined): Promise<number | undefined> {
    this.#emit("onEvent", event);
    const prior = await this.#lookup(event.id);
    if (prior) {
      this.#summary.duplicates++;
      await this.#ack(event, prior, true);
      return undefined;
    }
    const handler = handlerFor(this.#o.handle, this.#o.onUnknown, event.type);
    if (!handler) {
      this.#summary.skipped++;
      const result: AckResult = { outcome: "skipped", reason: `no handler for event type ${event.type}` };
      await this.#remember(event, result);
      await this.#ack(event, result, false);
      return undefined;
    }
    let lastMessageId: string | undefined;
    let posted = false;
    const handlerAbort = new AbortController();
    this.#turns.set(event.id, handlerAbort);
    this.#cancels.start(event);
    const outcome = await runTurn({
      event,
      handler,
      client: this.#o.client,
      span,
      handlerAbort,
      stop: this.#stop,
      sleep: this.#sleep,
      shutdownTimeoutMs: this.#o.shutdownTimeoutMs ?? 10_000,
      onPosted: (id) => {
        posted = true;
        lastMessageId = id || lastMessageId;
      },
    });
    this.#turns.delete(event.id);
    this.#cancels.end(event.id);
    // A cancel learned after the handler settled changes nothing: its own result is acked.
    this.#cancels.take(event.id);
    if (outcome.kind === "cancelled") {
      await this.#ackCancelled(event, outcome.error);
      return undefined;
    }
    if (outcome.kind === "given_up") {
      this.#summary.released++;
      if (this.#leases.holds(event.id))
        await this.#giveBack(event, 0, "the driver stopped before the handler finished");
      this.#spans.end(event, { givenUp: outcome.why });
      return undefined;
    }
    if (outcome.kind === "failed") {
      this.#summary.failures++;
      const failureClass = classifyFailure(outcome.error);
      const decision = this.#circuit.failure(failureClass);
      this.#emit("onError", { stage: "handler", error: outcome.error, event, failureClass });
      this.#emit("onCircuit", { ...decision, eventId: event.id });
      // Back when the circuit's probe is due, not when the lease would have ended; when stopping
      // (a killed handler fails too) at once: the circuit is this process's, and it is ending.
      const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      await this.#giveBack(
        event,
        this.#stop.aborted ? 0 : delaySecondsOf(decision.delayMs),
        `handler failed (${failureClass}, ${decision.consecutive} in a row): ${message}`,
      );
      this.#spans.end(event, { failed: outcome.error, failureClass });
      return decision.delayMs;
    }
    this.#circuit.reset();
    this.#summary.handled++;
    const value = outcome.value;
    const result: AckResult =
      value && typeof value === "object" && typeof value.outcome === "string"
        ? value
        : posted
          ? { outcome: "posted", ...(lastMessageId ? { messageId: lastMessageId } : {}) }
          : { outcome: "acknowledged" };
    await this.#remember(event, result);
    await this.#ack(event, result, false);
    return undefined;
  }

  /** What is left of `event`'s lease by its `leaseExpiresAt` (the whole assumed lease without one). */
  #leftMs(event: Event): number {
    const left = event.leaseExpiresAt ? Date.parse(event.leaseExpiresAt) - this.#clock() : Number.NaN;
    return Number.isFinite(left) ? left : this.#leaseMs(event);
  }

  #leaseMs(event: Event): number {
    if (this.#info) return this.#info.leaseSeconds * 1000;
    if (event.leaseExpiresAt) {
      const left = Date.parse(event.leaseExpiresAt) - this.#clock();
      if (Number.isFinite(left) && left > 0) return left;
    }
    return (this.#o.leaseSeconds ?? 30) * 1000;
  }

  /** A held event's lease was lost: abort its handler if it runs; a waiting one will not start. */
  #onLost(event: Event, error: CapSdkError): void {
    if (this.#cancels.fromLost(event, error)) return;
    const turn = this.#turns.get(event.id);
    if (!turn) this.#summary.released++;
    this.#emit("onLeaseLost", { event, error });
    if (turn && !turn.signal.aborted) turn.abort(error);
  }

  /**
   * The kernel cancelled a held event: stop renewing it and abort its handler with the `CancelledError`
   * (a waiting event will not start). The ack `cancelled` follows once the handler settled, or at the
   * end of the batch for a waiting one.
   */
  #onCancel(event: Event, error: CancelledError): void {
    this.#leases.drop(event.id);
    const { reason, requestedAt } = error;
    this.#emit("onCancel", { event, reason, ...(requestedAt ? { requestedAt } : {}) });
    const turn = this.#turns.get(event.id);
    if (turn && !turn.signal.aborted) turn.abort(error);
  }

  /** Ack a cancelled event `cancelled` (CAP-CANCEL-18): the kernel keeps it `cancelled` and records this. */
  async #ackCancelled(event: Event, cancel: CancelledError): Promise<void> {
    this.#summary.cancelled++;
    const result: AckResult = { outcome: "cancelled", reason: cancel.reason };
    await this.#remember(event, result);
    await this.#ack(event, result, false);
  }

  async #lookup(id: string): Promise<AckResult | undefined> {
    try {
      return await this.#store.get(id);
    } catch (error) {
      this.#emit("onError", { stage: "store", error });
      return undefined;
    }
  }

  async #remember(event: Event, result: AckResult): Promise<void> {
    try {
      await this.#store.set(event.id, result);
    } catch (error) {
      this.#emit("onError", { stage: "store", error, event });
    }
  }

  /** The handler finished (or never had to run): stop renewing, and ack (now or in the next batch). */
  async #ack(event: Event, result: AckResult, duplicate: boolean): Promise<void> {
    this.#leases.drop(event.id);
    await this.#settler.ack(event, result, duplicate);
    this.#spans.end(event, { acked: result, duplicate });
  }
}
