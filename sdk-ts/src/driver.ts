/**
 * `runDriver`: the poll → dedup → handle → ack loop every CAP driver needs, done once and right.
 * Long-poll with a fallback to interval polling, serial handling (or opt-in concurrency with a
 * per-pod lock), lease renewal while a handler runs, a handled-ids store so redeliveries are
 * re-acked without running the handler, the ADR-005 retry circuit after handler failures, poll
 * backoff that never gives up except on three consecutive 401/403, and a graceful stop.
 * It prints nothing (hooks report everything) and never acks an event whose handler did not finish.
 */

import type { DriverHooks, DriverOptions, DriverSummary, EventHandler } from "./driver-types.js";
import { CapHttpError, CapSdkError } from "./errors.js";
import { type HandledStore, MemoryHandledStore } from "./handled-store.js";
import { CIRCUIT_CEILING_MS, classifyFailure, RetryCircuit } from "./internal/circuit.js";
import type { LeaseKeeper } from "./internal/lease.js";
import { type Clock, realClock, realSleep, type Sleep, stableJitter } from "./internal/time.js";
import { runTurn } from "./internal/turn.js";
import type { AckResult, Event, Info } from "./types.js";

/** A long-poll answered empty faster than this (or a quarter of the wait) did not wait. */
const FAST_EMPTY_MS = 1000;

/** The production kernel's names for documented types: a map without a handler for one uses the CAP one. */
const PRODUCTION_ALIASES: Record<string, string> = {
  "chat.mention": "mention.received",
  "thread.mention": "mention.received",
  heartbeat: "heartbeat.tick",
};

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
  readonly #summary: DriverSummary = {
    polls: 0,
    handled: 0,
    duplicates: 0,
    skipped: 0,
    failures: 0,
    released: 0,
  };
  #info: Info | undefined;
  #infoSettled = false;
  #limit: number;
  #wait: number;
  #fastEmpties = 0;
  #pollFailures = 0;
  #authFailures = 0;
  #renewSupported = true;

  constructor(options: DriverOptions) {
    this.#o = options;
    this.#stop = options.signal ?? new AbortController().signal;
    this.#clock = options.clock ?? realClock;
    this.#sleep = options.sleep ?? realSleep;
    this.#store = options.store ?? new MemoryHandledStore();
    this.#jitter = stableJitter(options.agentKey ?? options.client.fingerprint);
    this.#interval = options.pollIntervalMs ?? 5000;
    this.#circuit = new RetryCircuit(this.#interval, this.#jitter);
    this.#limit = options.limit ?? 10;
    this.#wait = options.waitSeconds ?? 20;
  }

  #emit<K extends keyof DriverHooks>(hook: K, arg: Parameters<NonNullable<DriverHooks[K]>>[0]): void {
    try {
      (this.#o[hook] as ((a: typeof arg) => void) | undefined)?.(arg);
    } catch {
      // A hook must not break the loop.
    }
  }

  async run(): Promise<DriverSummary> {
    let announced = false;
    while (!this.#stop.aborted) {
      if (!this.#infoSettled) await this.#loadInfo();
      if (!announced && !this.#stop.aborted) {
        announced = true;
        const reason = this.#info ? "from /info" : "no /info; trying long-poll";
        this.#emit("onPollMode", { mode: this.#wait > 0 ? "long-poll" : "interval", reason });
      }
      const events = await this.#poll();
      if (events === undefined) continue;
      if (events.length === 0) {
        if (this.#wait === 0) await this.#sleep(this.#interval, this.#stop);
        continue;
      }
      const delay = await this.#runBatch(events);
      if (delay > 0) await this.#sleep(delay, this.#stop);
    }
    return this.#summary;
  }

  async #loadInfo(): Promise<void> {
    try {
      const info = await this.#o.client.info({ signal: this.#stop, retries: 0 });
      this.#info = info;
      this.#infoSettled = true;
      this.#limit = Math.max(1, Math.min(this.#limit, info.maxLimit));
      this.#wait = info.features.includes("long-poll") ? Math.min(this.#wait, info.maxWaitSeconds) : 0;
      this.#renewSupported = info.features.includes("renew");
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

  /** One poll. `undefined` when it failed (the backoff has been slept) or the driver is stopping. */
  async #poll(): Promise<Event[] | undefined> {
    const started = this.#clock();
    this.#summary.polls++;
    try {
      const { events } = await this.#o.client.poll(
        { limit: this.#limit, ...(this.#wait > 0 ? { waitSeconds: this.#wait } : {}) },
        { signal: this.#stop, retries: 0 },
      );
      this.#pollFailures = 0;
      this.#authFailures = 0;
      this.#detectIgnoredWait(events.length, this.#clock() - started);
      return events;
    } catch (error) {
      if (this.#stop.aborted) return undefined;
      const auth = error instanceof CapHttpError && (error.status === 401 || error.status === 403);
      this.#authFailures = auth ? this.#authFailures + 1 : 0;
      if (this.#authFailures >= 3) {
        throw new CapSdkError(
          "auth_stopped",
          `stopped after 3 consecutive ${(error as CapHttpError).status} answers to polls ` +
            `(${(error as CapHttpError).code}): the token was revoked or the agent uninstalled; re-attach it`,
          { cause: error },
        );
      }
      if (this.#wait > 0 && error instanceof CapHttpError && error.status === 400) {
        this.#wait = 0;
        this.#emit("onPollMode", {
          mode: "interval",
          reason: `the kernel rejected waitSeconds (${error.code})`,
        });
      }
      this.#pollFailures++;
      const base = Math.min(this.#interval * 2 ** (this.#pollFailures - 1), CIRCUIT_CEILING_MS);
      const delayMs = Math.round(base * (1 + this.#jitter));
      this.#emit("onPollError", {
        error,
        consecutive: auth ? this.#authFailures : this.#pollFailures,
        delayMs,
      });
      await this.#sleep(delayMs, this.#stop);
      return undefined;
    }
  }

  /** The production kernel ignores `waitSeconds`: two empty answers far faster than the wait mean no long-poll. */
  #detectIgnoredWait(count: number, elapsedMs: number): void {
    if (this.#wait === 0 || count > 0) return;
    const threshold = Math.min(FAST_EMPTY_MS, this.#wait * 250);
    if (elapsedMs >= threshold) {
      this.#fastEmpties = 0;
      return;
    }
    if (++this.#fastEmpties < 2) return;
    this.#wait = 0;
    this.#emit("onPollMode", {
      mode: "interval",
      reason: `two empty polls answered in under ${threshold} ms: waitSeconds is ignored`,
    });
  }

  /** Handles a batch; returns the circuit delay after a handler failure, else 0. */
  async #runBatch(events: Event[]): Promise<number> {
    const concurrency = Math.max(1, this.#o.concurrency ?? 1);
    let failureDelay = 0;
    let stopBatch = false;
    const tails = new Map<string, Promise<void>>();
    const running = new Set<Promise<void>>();
    for (const event of events) {
      if (stopBatch || this.#stop.aborted) break;
      while (running.size >= concurrency) await Promise.race(running);
      if (stopBatch || this.#stop.aborted) break;
      const task = (tails.get(event.podId) ?? Promise.resolve()).then(async () => {
        if (stopBatch || this.#stop.aborted) return;
        const delay = await this.#process(event);
        if (delay !== undefined) {
          stopBatch = true;
          failureDelay = Math.max(failureDelay, delay);
        }
      });
      tails.set(event.podId, task);
      running.add(task);
      void task.then(() => running.delete(task));
    }
    await Promise.all(running);
    return failureDelay;
  }

  #handlerFor(type: string): EventHandler | undefined {
    const { handle } = this.#o;
    if (typeof handle === "function") return handle;
    if (Object.hasOwn(handle, type) && typeof handle[type] === "function") return handle[type];
    const alias = PRODUCTION_ALIASES[type];
    if (alias && typeof handle[alias] === "function") return handle[alias];
    return this.#o.onUnknown;
  }

  /** Dedup, dispatch, ack. Returns a delay when the handler failed. Never throws. */
  async #process(event: Event): Promise<number | undefined> {
    this.#emit("onEvent", event);
    const prior = await this.#lookup(event.id);
    if (prior) {
      this.#summary.duplicates++;
      await this.#ack(event, prior, true);
      return undefined;
    }
    const handler = this.#handlerFor(event.type);
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
    const outcome = await runTurn({
      event,
      handler,
      client: this.#o.client,
      handlerAbort,
      stop: this.#stop,
      sleep: this.#sleep,
      shutdownTimeoutMs: this.#o.shutdownTimeoutMs ?? 10_000,
      lease: this.#renewSupported ? this.#leaseKeeper(event, handlerAbort) : undefined,
      onPosted: (id) => {
        posted = true;
        lastMessageId = id || lastMessageId;
      },
    });
    if (outcome.kind === "released") {
      this.#summary.released++;
      return undefined;
    }
    if (outcome.kind === "failed") {
      this.#summary.failures++;
      const failureClass = classifyFailure(outcome.error);
      const decision = this.#circuit.failure(failureClass);
      this.#emit("onError", { stage: "handler", error: outcome.error, event, failureClass });
      this.#emit("onCircuit", { ...decision, eventId: event.id });
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

  #leaseKeeper(event: Event, handlerAbort: AbortController): LeaseKeeper {
    let leaseMs = (this.#o.leaseSeconds ?? 30) * 1000;
    if (this.#info) leaseMs = this.#info.leaseSeconds * 1000;
    else if (event.leaseExpiresAt) {
      const left = Date.parse(event.leaseExpiresAt) - this.#clock();
      if (Number.isFinite(left) && left > 0) leaseMs = left;
    }
    return {
      client: this.#o.client,
      event,
      leaseMs,
      renewAt: this.#o.renewAt ?? 0.5,
      sleep: this.#sleep,
      onRenew: (leaseExpiresAt: string) => this.#emit("onRenew", { event, leaseExpiresAt }),
      onError: (error: unknown) => this.#emit("onError", { stage: "renew", error, event }),
      onLost: (error: CapSdkError) => {
        this.#emit("onLeaseLost", { event, error });
        if (!handlerAbort.signal.aborted) handlerAbort.abort(error);
      },
      onUnsupported: () => {
        this.#renewSupported = false;
      },
    };
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

  async #ack(event: Event, result: AckResult, duplicate: boolean): Promise<void> {
    try {
      await this.#o.client.ack(event.id, result);
      this.#emit("onAck", { event, result, duplicate });
    } catch (error) {
      this.#emit("onError", { stage: "ack", error, event });
    }
  }
}
