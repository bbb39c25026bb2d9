/**
 * The polling half of `runDriver`: one poll at a time with the right `limit`, `waitSeconds` and
 * `pollId`, backoff after a failure (from the poll interval, doubling to 15 minutes, never giving
 * up), the fallback from long-poll to interval polling (the kernel rejects `waitSeconds`, or ignores
 * it like the production kernel), and the stop after three consecutive 401/403. A failed poll may
 * have claimed events whose answer was lost, so the next try carries the same `pollId` — a kernel
 * with `poll-replay` answers those deliveries again — and only an answered poll retires its id.
 */

import type { CapClient } from "../../client.js";
import type { DriverHooks } from "../../driver-types.js";
import { CapHttpError, CapSdkError } from "../../errors.js";
import type { Event } from "../../types.js";
import { newPollId } from "../client/ids.js";
import type { Clock, Sleep } from "../client/time.js";
import { Backoff } from "./backoff.js";

/** A long-poll answered empty faster than this (or a quarter of the wait) did not wait. */
const FAST_EMPTY_MS = 1000;

export interface PollerOptions {
  client: CapClient;
  stop: AbortSignal;
  clock: Clock;
  sleep: Sleep;
  /** Poll interval in ms: the base of the backoff. */
  interval: number;
  /** The agent's stable delay offset in [0, 0.2). */
  jitter: number;
  onPollMode: NonNullable<DriverHooks["onPollMode"]>;
  onPollError: NonNullable<DriverHooks["onPollError"]>;
}

export class Poller {
  /** Events per poll. */
  limit: number;
  /** Long-poll wait in seconds; 0 for interval polling. */
  wait: number;
  readonly #o: PollerOptions;
  #fastEmpties = 0;
  readonly #backoff: Backoff;
  #authFailures = 0;
  /** The id of the poll being tried; kept across failed tries, replaced after an answer. */
  #pollId: string | undefined;

  constructor(options: PollerOptions, limit: number, wait: number) {
    this.#o = options;
    this.#backoff = new Backoff(options.interval, options.jitter);
    this.limit = limit;
    this.wait = wait;
  }

  /** One poll. `undefined` when it failed (the backoff has been slept) or the driver is stopping. */
  async poll(): Promise<Event[] | undefined> {
    const started = this.#o.clock();
    // A failed poll may have claimed events whose answer was lost: the retry carries the same
    // pollId, so a kernel with poll-replay answers those deliveries again.
    this.#pollId ??= newPollId();
    try {
      const { events } = await this.#o.client.poll(
        {
          limit: this.limit,
          ...(this.wait > 0 ? { waitSeconds: this.wait } : {}),
          pollId: this.#pollId,
        },
        { signal: this.#o.stop, retries: 0 },
      );
      this.#pollId = undefined;
      this.#backoff.reset();
      this.#authFailures = 0;
      this.#detectIgnoredWait(events.length, this.#o.clock() - started);
      return events;
    } catch (error) {
      if (this.#o.stop.aborted) return undefined;
      // The kernel answered with an error: it claimed nothing, but reusing the id is harmless and
      // keeps a lost answer before it recoverable.
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
      if (this.wait > 0 && error instanceof CapHttpError && error.status === 400) {
        this.wait = 0;
        this.#o.onPollMode({
          mode: "interval",
          reason: `the kernel rejected waitSeconds (${error.code})`,
        });
      }
      // Never sooner than the kernel asked (CAP-DRV-12): a Retry-After longer than the backoff wins.
      const retryAfterMs =
        error instanceof CapHttpError && error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : 0;
      const delayMs = this.#backoff.next(retryAfterMs);
      this.#o.onPollError({
        error,
        consecutive: auth ? this.#authFailures : this.#backoff.failures,
        delayMs,
      });
      await this.#o.sleep(delayMs, this.#o.stop);
      return undefined;
    }
  }

  /** The production kernel ignores `waitSeconds`: two empty answers far faster than the wait mean no long-poll. */
  #detectIgnoredWait(count: number, elapsedMs: number): void {
    if (this.wait === 0 || count > 0) return;
    const threshold = Math.min(FAST_EMPTY_MS, this.wait * 250);
    if (elapsedMs >= threshold) {
      this.#fastEmpties = 0;
      return;
    }
    if (++this.#fastEmpties < 2) return;
    this.wait = 0;
    this.#o.onPollMode({
      mode: "interval",
      reason: `two empty polls answered in under ${threshold} ms: waitSeconds is ignored`,
    });
  }
}
